"""Write tasks/demo/rubric_demo.jsonl: the demo rubric task, written by the judgebench authors.

15 short olympiad-style problems (5 each in physics, chemistry, biology), each with a rubric of three
items with point maxima, answered by three fictional candidate models. A response is assembled from
each item's correct, flawed or missing step; the expert's item scores follow the step (full marks,
partial credit, zero) with a seeded spread of half-point judgement calls, so a judge that reads only
length or gives everything full credit is visibly wrong. Deterministic: rerun to regenerate.

    python scripts/make_rubric_demo.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tasks" / "demo" / "rubric_demo.jsonl"

# (subject, problem id, question, answer, solution, [(item id, criterion, max, correct step, flawed step)])
PROBLEMS = [
    ("physics", "phy-1", "A 2.0 kg block slides from rest down a frictionless 30 degree incline 5.0 m long. Find its speed at the bottom (g = 9.8 m/s^2).",
     "7.0 m/s", "Height h = 5.0 sin 30 = 2.5 m; energy conservation mgh = mv^2/2 gives v = sqrt(2gh) = sqrt(49) = 7.0 m/s.",
     [("a", "Finds the height drop h = L sin(theta) = 2.5 m", 1.0, "The block drops a height h = 5.0 m x sin 30 = 2.5 m.", "The block drops a height of 5.0 m x cos 30 = 4.3 m."),
      ("b", "Uses energy conservation mgh = mv^2/2 (mass cancels)", 1.5, "With no friction, mgh = (1/2)mv^2, so the mass cancels and v = sqrt(2gh).", "The force along the slope is mg, so the speed follows from v^2 = 2gL."),
      ("c", "Correct value v = 7.0 m/s with units", 0.5, "v = sqrt(2 x 9.8 x 2.5) = 7.0 m/s.", "v is about 9.9.")]),
    ("physics", "phy-2", "Two resistors of 6 ohm and 3 ohm are connected in parallel across a 12 V battery. Find the current drawn from the battery.",
     "6.0 A", "Parallel resistance 6*3/(6+3) = 2 ohm; I = V/R = 12/2 = 6.0 A.",
     [("a", "Parallel combination R = 2 ohm", 1.0, "In parallel, 1/R = 1/6 + 1/3 = 1/2, so R = 2 ohm.", "In parallel the resistances add: R = 9 ohm."),
      ("b", "Ohm's law I = V / R", 1.0, "The battery current is I = V/R.", "The current is I = V x R."),
      ("c", "Correct value 6.0 A", 1.0, "I = 12 V / 2 ohm = 6.0 A.", "I = 12/9 = 1.3 A.")]),
    ("physics", "phy-3", "A 500 nm light beam hits a double slit with slit separation 0.25 mm; the screen is 1.5 m away. Find the fringe spacing.",
     "3.0 mm", "Fringe spacing = lambda L / d = 500e-9 * 1.5 / 0.25e-3 = 3.0e-3 m.",
     [("a", "States fringe spacing = lambda L / d", 1.5, "Bright fringes are spaced by lambda L / d.", "Fringe spacing is d L / lambda."),
      ("b", "Converts units consistently (nm, mm to m)", 0.5, "lambda = 5.0e-7 m and d = 2.5e-4 m.", "lambda = 500 and d = 0.25, left in mixed units."),
      ("c", "Correct value 3.0 mm", 1.0, "Spacing = 5.0e-7 x 1.5 / 2.5e-4 = 3.0 mm.", "Spacing = 0.3 mm.")]),
    ("physics", "phy-4", "An ideal gas at 300 K and 100 kPa is heated at constant volume to 450 K. Find the new pressure.",
     "150 kPa", "At constant volume p/T is constant: p2 = 100 * 450/300 = 150 kPa.",
     [("a", "Uses p/T constant at fixed volume (Gay-Lussac)", 1.5, "At constant volume p/T stays the same.", "At constant volume pT stays the same."),
      ("b", "Uses absolute temperatures", 0.5, "Both temperatures are already in kelvin, as the law needs.", "Convert to Celsius first: 27 and 177 degrees."),
      ("c", "Correct value 150 kPa", 1.0, "p2 = 100 kPa x 450/300 = 150 kPa.", "p2 = 100 x 300/450 = 67 kPa.")]),
    ("physics", "phy-5", "A satellite orbits Earth in a circular orbit of radius 7.0e6 m. Find its orbital period (GM = 4.0e14 m^3/s^2).",
     "about 5.8e3 s", "GM/r^2 = v^2/r gives T = 2 pi sqrt(r^3/GM) = 2 pi sqrt(3.43e20/4.0e14) = 5.8e3 s.",
     [("a", "Sets gravity equal to the centripetal force", 1.0, "Gravity supplies the centripetal force: GMm/r^2 = m v^2 / r.", "Gravity balances the centrifugal push, so GMm/r = m v^2."),
      ("b", "Derives T = 2 pi sqrt(r^3 / GM)", 1.5, "With v = 2 pi r / T this gives T = 2 pi sqrt(r^3/GM).", "So T = 2 pi r^2 / GM."),
      ("c", "Correct value about 5.8e3 s", 0.5, "T = 2 pi sqrt(3.43e20 / 4.0e14) = 5.8e3 s, about 97 minutes.", "T is about 24 hours.")]),
    ("chemistry", "chem-1", "What mass of water forms when 4.0 g of hydrogen gas burns completely in excess oxygen?",
     "36 g", "2 H2 + O2 -> 2 H2O; 4.0 g H2 = 2.0 mol gives 2.0 mol H2O = 36 g.",
     [("a", "Balanced equation 2 H2 + O2 -> 2 H2O", 1.0, "The balanced reaction is 2 H2 + O2 -> 2 H2O.", "The reaction is H2 + O2 -> H2O."),
      ("b", "Moles of H2 = 2.0 mol and 1:1 ratio to water", 1.0, "4.0 g / 2.0 g/mol = 2.0 mol H2, giving 2.0 mol water.", "4.0 g of hydrogen is 4.0 mol of H2."),
      ("c", "Correct mass 36 g", 1.0, "2.0 mol x 18 g/mol = 36 g of water.", "That makes 72 g of water.")]),
    ("chemistry", "chem-2", "Find the pH of a 0.010 M solution of hydrochloric acid at 25 C.",
     "2.0", "HCl is a strong acid: [H+] = 0.010 M, pH = -log10(0.010) = 2.0.",
     [("a", "Treats HCl as fully dissociated", 1.0, "HCl is a strong acid and dissociates completely, so [H+] = 0.010 M.", "HCl is a weak acid, so only part of it dissociates."),
      ("b", "Uses pH = -log10[H+]", 1.0, "pH = -log10[H+].", "pH = log10[H+]."),
      ("c", "Correct value 2.0", 0.5, "pH = -log10(0.010) = 2.0.", "pH = 12.")]),
    ("chemistry", "chem-3", "Predict the molecular geometry of ammonia (NH3) and explain it with VSEPR theory.",
     "trigonal pyramidal", "N has three bonding pairs and one lone pair: tetrahedral electron domains, trigonal pyramidal shape, angle about 107 degrees.",
     [("a", "Counts three bonding pairs and one lone pair on N", 1.0, "Nitrogen has three N-H bonding pairs and one lone pair.", "Nitrogen has three bonding pairs and no lone pair."),
      ("b", "Names the geometry trigonal pyramidal", 1.5, "Four electron domains in a tetrahedral arrangement with one lone pair give a trigonal pyramidal molecule.", "The molecule is trigonal planar."),
      ("c", "Bond angle below 109.5 degrees (about 107)", 0.5, "The lone pair squeezes the H-N-H angle to about 107 degrees.", "The H-N-H angle is 120 degrees.")]),
    ("chemistry", "chem-4", "For N2 + 3 H2 <=> 2 NH3 (exothermic), state the effect on the equilibrium yield of ammonia of raising the temperature and of raising the pressure.",
     "higher T lowers the yield; higher p raises it", "Exothermic forward reaction: heating shifts left. Four moles of gas become two: higher pressure shifts right.",
     [("a", "Higher temperature lowers the yield (exothermic)", 1.5, "Because the forward reaction releases heat, raising the temperature shifts the equilibrium left and lowers the ammonia yield.", "Raising the temperature speeds the reaction up, so the yield of ammonia goes up."),
      ("b", "Higher pressure raises the yield (fewer gas moles)", 1.5, "Four moles of gas become two, so higher pressure favours ammonia.", "Pressure does not change the equilibrium yield."),
      ("c", "Explains with Le Chatelier's principle", 0.5, "Both follow from Le Chatelier's principle: the system opposes the change.", "This is because of the catalyst.")]),
    ("chemistry", "chem-5", "How many grams of NaCl are needed to make 250 mL of a 0.40 M solution? (M = 58.5 g/mol)",
     "5.85 g", "n = 0.40 * 0.250 = 0.10 mol; m = 0.10 * 58.5 = 5.85 g.",
     [("a", "Moles n = c V = 0.10 mol with V in litres", 1.0, "n = 0.40 mol/L x 0.250 L = 0.10 mol.", "n = 0.40 x 250 = 100 mol."),
      ("b", "Mass m = n M", 1.0, "m = n x M.", "m = n / M."),
      ("c", "Correct value 5.85 g", 0.5, "m = 0.10 x 58.5 = 5.85 g.", "m = 585 g.")]),
    ("biology", "bio-1", "Two heterozygous tall pea plants (Tt) are crossed; tall is dominant. What share of the offspring is expected to be short?",
     "1/4", "Tt x Tt gives TT : Tt : tt = 1 : 2 : 1; only tt is short, so 1/4.",
     [("a", "Sets up the Tt x Tt cross (Punnett square)", 1.0, "Each parent gives T or t with equal chance; the Punnett square has TT, Tt, Tt, tt.", "Each parent gives T, so all offspring are TT."),
      ("b", "Identifies tt as the only short genotype", 1.0, "Only tt plants are short because tall is dominant.", "Tt plants are short because they carry t."),
      ("c", "Correct share 1/4", 1.0, "So 1/4 of the offspring are expected to be short.", "So half of the offspring are short.")]),
    ("biology", "bio-2", "Explain why a cell placed in a strongly hypertonic solution shrinks.",
     "water leaves by osmosis", "Water moves by osmosis from the cell (higher water potential) to the hypertonic solution (lower water potential) across the membrane.",
     [("a", "Names osmosis across a selectively permeable membrane", 1.0, "Water crosses the selectively permeable membrane by osmosis.", "Salt diffuses into the cell and pushes it inwards."),
      ("b", "Direction: water leaves the cell", 1.0, "Water leaves the cell towards the more concentrated solution.", "Water enters the cell from the solution."),
      ("c", "Uses water potential (or solute concentration) correctly", 1.0, "The solution has the lower water potential, so the net flow of water is outwards.", "The cell has the lower water potential.")]),
    ("biology", "bio-3", "Which enzyme joins Okazaki fragments during DNA replication, and why are these fragments formed?",
     "DNA ligase; lagging strand synthesized discontinuously 5' to 3'", "Polymerase only extends 5' to 3', so the lagging strand is made in fragments that ligase joins.",
     [("a", "Names DNA ligase", 1.0, "DNA ligase seals the fragments together.", "Helicase joins the fragments."),
      ("b", "Polymerase works only 5' to 3'", 1.0, "DNA polymerase can only add nucleotides in the 5' to 3' direction.", "Polymerase works in both directions but more slowly backwards."),
      ("c", "Lagging strand is made discontinuously", 1.0, "So the lagging strand is built in short pieces, away from the fork.", "So the leading strand is built in pieces.")]),
    ("biology", "bio-4", "State where in the chloroplast the light-dependent reactions and the Calvin cycle take place, and what links them.",
     "thylakoid membranes; stroma; ATP and NADPH", "Light reactions in the thylakoid membranes make ATP and NADPH, which the Calvin cycle in the stroma uses to fix CO2.",
     [("a", "Light-dependent reactions in the thylakoid membranes", 1.0, "The light-dependent reactions happen in the thylakoid membranes.", "The light-dependent reactions happen in the stroma."),
      ("b", "Calvin cycle in the stroma", 1.0, "The Calvin cycle runs in the stroma.", "The Calvin cycle runs in the mitochondria."),
      ("c", "ATP and NADPH link the two stages", 1.0, "ATP and NADPH from the light reactions power carbon fixation.", "Oxygen from the light reactions powers carbon fixation.")]),
    ("biology", "bio-5", "A population is in Hardy-Weinberg equilibrium and 16% of individuals show a recessive phenotype. Find the share of heterozygous carriers.",
     "48%", "q^2 = 0.16, q = 0.4, p = 0.6, 2pq = 0.48.",
     [("a", "q^2 = 0.16 so q = 0.4", 1.0, "Recessive homozygotes are q^2 = 0.16, so q = 0.4.", "q = 0.16 directly."),
      ("b", "p = 1 - q = 0.6", 0.5, "p = 1 - 0.4 = 0.6.", "p = 0.84."),
      ("c", "Carriers 2pq = 0.48", 1.5, "Carriers are 2pq = 2 x 0.6 x 0.4 = 0.48, so 48%.", "Carriers are p^2 = 0.36.")]),
]

# model -> probabilities of (correct, flawed, missing) per step, and filler sentences it adds
MODELS = {
    "model-alpha": ((0.75, 0.15, 0.10), 0),
    "model-beta": ((0.45, 0.35, 0.20), 3),  # verbose: long but often wrong
    "model-gamma": ((0.30, 0.30, 0.40), 0),  # terse
}
FILLER = [
    "Let us think about this carefully and consider all the relevant principles.",
    "This is a classic problem that appears in many textbooks and olympiad papers.",
    "It is important to keep track of units and significant figures throughout.",
    "Many students find this topic confusing, so it is worth going slowly.",
    "We can double-check the reasoning by considering limiting cases.",
]
NO_ANSWER = {("model-gamma", "phy-5"), ("model-gamma", "chem-4")}
EXAMS = {"physics": "IPhO-demo", "chemistry": "IChO-demo", "biology": "IBO-demo"}


def expert_points(kind: str, top: float, rng: random.Random) -> float:
    """Full marks, partial credit or zero, with the half-point judgement calls of a human marker."""
    if kind == "correct":
        return top - 0.5 if top >= 1.0 and rng.random() < 0.12 else top
    if kind == "flawed":
        half = round(top / 2 * 2) / 2  # half credit, to the nearest half point
        return max(0.0, min(top, half + rng.choice([-0.5, 0.0, 0.0, 0.0]))) if top >= 1.0 else 0.0
    return 0.0


def build_row(problem: tuple, model: str, rng: random.Random) -> dict:
    subject, pid, question, answer, solution, items = problem
    weights, filler = MODELS[model]
    steps, expert = [], {}
    for item_id, _criterion, top, good, bad in items:
        kind = rng.choices(["correct", "flawed", "missing"], weights=weights)[0]
        if kind != "missing":
            steps.append(good if kind == "correct" else bad)
        expert[item_id] = expert_points(kind, top, rng)
    extra = rng.sample(FILLER, filler)
    text = " ".join(extra[:1] + steps + extra[1:])
    if (model, pid) in NO_ANSWER:
        text, expert = "", {item_id: 0.0 for item_id, *_ in items}
    return {
        "id": f"{pid}-{model}", "problem": pid, "subject": subject, "exam": EXAMS[subject], "model": model,
        "question": question, "answer": answer, "solution": solution, "response": text,
        "rubric": [{"id": i, "criterion": c, "max": m} for i, c, m, _g, _b in items],
        "expert_scores": expert, "expert_total": round(sum(expert.values()), 6),
    }


def main() -> None:
    rng = random.Random(20261201)
    rows = [build_row(problem, model, rng) for problem in PROBLEMS for model in MODELS]
    OUT.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
