"""`judgebench arena`: model ratings from raw human votes (Bradley–Terry on the Elo scale, style
control, slices, matrices), judge-induced rankings, judge-assisted (PPI++) ratings, the votes needed,
voter quality and ranking robustness.

Modules: battles (votes -> battles, aggregation), fit (ratings), voters (anomaly test, annotator
table), compare (judge vs human rankings, robustness), assisted (human-only, judge-only and judge-assisted
ratings with prediction-powered intervals, stratified by a slice), needed (votes needed, by simulation),
build (the whole computation), write (outputs), command (CLI), synthetic (the demo votes generator and a
synthetic judge run). docs/guide/arena.md has the details.
"""
