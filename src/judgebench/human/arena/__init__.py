"""`judgebench arena`: model ratings from raw human votes (Bradley–Terry on the Elo scale, style
control, slices, matrices), judge-induced rankings, voter quality and ranking robustness.

Modules: battles (votes -> battles, aggregation), fit (ratings), voters (anomaly test, annotator
table), compare (judge vs human rankings, robustness), build (the whole computation), write
(outputs), command (CLI), synthetic (the demo votes generator). docs/guide/arena.md has the details.
"""
