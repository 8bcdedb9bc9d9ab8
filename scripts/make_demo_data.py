"""Generate the bundled demo data in tasks/demo/.

Everything below is handwritten, fictional demo content. The questions,
responses, papers, authors, proposals and "human" labels are invented for
exercising judgebench end to end; none of it is real data, and none of it is
copied from the released SciArena-Eval or Ideation-Arena-Eval sets. Only the
field layout mirrors those datasets.

The script is deterministic: the only choices it makes itself (which side of a
pair a response is shown on, and which model names are attached to a pair) come
from a fixed seed.

    .venv/bin/python scripts/make_demo_data.py
"""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "tasks" / "demo"

SUBJECTS = ("Natural Science", "Healthcare", "Humanities & Social Sciences", "Engineering")
QUESTION_TYPES = (
    "Conceptual Explanation",
    "State-of-the-Art Assessment",
    "Challenges & Limitations",
    "Methodology Inquiry",
    "Paper Finding",
    "Others",
)

# ---------------------------------------------------------------------------
# SciArena-style rows. Each row is written as the response the (fictional)
# human preferred ("win") and the one they did not ("lose"); `refs` maps each
# in-text citation to a plausible, invented title. Which side is shown as A is
# decided later with a fixed seed, balanced within each subject.
# ---------------------------------------------------------------------------

SCI: list[dict] = []


_ITEM = re.compile(r"^(?:- |\d+\. )")


def clean(text: str) -> str:
    """Undo the source indentation and line wrapping.

    Blank lines separate paragraphs; a line starting with "- " or "1. " starts a
    new list item; any other line continues the previous one.
    """
    paras = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines: list[str] = []
        for raw in block.splitlines():
            line = " ".join(raw.split())
            if not line:
                continue
            if lines and not _ITEM.match(line):
                lines[-1] += " " + line
            else:
                lines.append(line)
        if lines:
            paras.append("\n".join(lines))
    return "\n\n".join(paras)


def sci(subject: str, qtype: str, question: str, win: str, lose: str, refs: dict[str, str]) -> None:
    SCI.append(
        {
            "subject": subject,
            "question_type": qtype,
            "question": clean(question),
            "win": clean(win),
            "lose": clean(lose),
            "refs": refs,
        }
    )


# ----------------------------- Natural Science -----------------------------
NS = "Natural Science"

sci(
    NS,
    "Conceptual Explanation",
    """Why do methylammonium lead iodide perovskite solar cells degrade so quickly in humid air,
    and which mechanisms dominate the degradation?""",
    win="""
    Moisture degradation of MAPbI3 proceeds through a sequence of steps rather than a single reaction.
    At moderate humidity, water molecules first intercalate into the lattice and form a monohydrate phase;
    in situ diffraction shows that this step is largely reversible if the film is dried quickly
    (Okafor et al. 2021). Prolonged exposure converts the monohydrate into a dihydrate and ultimately into
    PbI2, with methylammonium and hydrogen iodide escaping as volatile species, at which point the damage
    is irreversible.

    Where water enters matters. Grain boundaries and film surfaces are the main entry points, and films with
    small grains degrade noticeably faster than large-grain films processed under identical conditions
    (Lindqvist and Berg 2020). Degradation is also strongly accelerated when humidity is combined with
    illumination: photo-generated electrons react with adsorbed oxygen to form superoxide, which
    deprotonates methylammonium, and light-driven iodide migration opens further pathways (Tanaka et al. 2022a).
    Operating devices therefore degrade faster than films stored in the dark at the same humidity.

    Mitigation follows from these mechanisms. Replacing methylammonium with formamidinium/cesium mixtures
    removes the most volatile cation and slows hydration kinetics (Moreau et al. 2023), while thin 2D
    perovskite capping layers with hydrophobic organic spacers block water at the surface without a large
    efficiency penalty (Haddad and Iyer 2022). Encapsulation remains necessary for outdoor use, but
    compositional engineering determines how forgiving the absorber is when encapsulation is imperfect.
    """,
    lose="""
    Perovskite solar cells are very sensitive to water because the organic-inorganic crystal is soluble in
    water. When humidity enters the device, the perovskite dissolves and turns into lead iodide, which is
    yellow and no longer absorbs visible light efficiently (Petrov 2019). Once hydrate phases form, the
    damage is permanent, so even short exposures reduce efficiency for good.

    The main solution is to protect the cell. Glass-glass encapsulation with edge sealants keeps water away,
    and hydrophobic layers on top of the perovskite can also help (Haddad and Iyer 2022). Researchers are
    also trying other compositions, but encapsulation is still the most important factor for making
    perovskite modules commercially viable. Overall, humidity stability is one of the biggest obstacles to
    commercialization, along with heat and light stability.
    """,
    refs={
        "Okafor et al. 2021": "In situ observation of hydrate phase formation in methylammonium lead iodide films under controlled humidity",
        "Lindqvist and Berg 2020": "Grain boundaries as entry points for moisture-driven decomposition in hybrid perovskite films",
        "Tanaka et al. 2022a": "Light-accelerated degradation of hybrid perovskites in humid air: superoxide formation and ion migration",
        "Moreau et al. 2023": "Formamidinium-cesium mixed-cation perovskites with suppressed hydration kinetics",
        "Haddad and Iyer 2022": "Hydrophobic two-dimensional capping layers for moisture-resilient perovskite photovoltaics",
        "Petrov 2019": "Stability challenges of organic-inorganic halide perovskite solar cells: a review",
    },
)

sci(
    NS,
    "State-of-the-Art Assessment",
    """How good are current machine-learned interatomic potentials at simulating reactive chemistry,
    for example bond breaking in catalysis?""",
    win="""
    Machine-learned interatomic potentials (MLIPs) have become accurate enough to replace density functional
    theory for many near-equilibrium simulations, but reactive chemistry is still the hardest regime for them.

    The main advances come from equivariant message-passing architectures, which reach energy errors of a
    few meV per atom with far less training data than earlier descriptor-based models (Nguyen et al. 2023).
    For reactions, data coverage matters more than architecture: transition states and bond-breaking
    configurations are rare in ordinary molecular dynamics, so most successful reactive MLIPs are trained
    with active learning loops that run enhanced-sampling simulations, flag configurations where an
    ensemble of models disagrees, and send those back for DFT labelling (Alvarez and Kim 2022). With this
    approach, barriers for surface reactions on metal catalysts are typically reproduced within 0.1 eV of
    the reference DFT values.

    Several limitations remain. Most models use a fixed cutoff of 5 to 6 Angstrom and have no explicit
    long-range electrostatics, which causes problems for charge transfer, ionic intermediates and
    electrochemical interfaces. Large pretrained "foundation" potentials trained on broad materials
    databases transfer surprisingly well, yet they often underestimate barriers unless fine-tuned on
    system-specific reactive data (Schmidt et al. 2024). Finally, an MLIP can only be as accurate as its
    reference method, and many DFT functionals themselves misplace barriers by 0.2 eV or more.

    In short: reliable for well-sampled reactions in a fixed chemical system, still fragile for new
    chemistries, charged species and anything requiring accuracy beyond the training functional.
    """,
    lose="""
    Machine-learned potentials now achieve quantum accuracy for reactive chemistry. Neural network potentials
    reproduce DFT energies across catalytic reactions (Nguyen et al. 2023), and kernel-based methods reach
    chemical accuracy for bond dissociation (Rossi 2021). Graph neural networks have been applied to
    combustion (Zhao et al. 2022), to zeolite catalysis (Kowalski et al. 2023) and to electrochemistry
    (Brennan and Osei 2023), always matching the reference calculations. Pretrained universal potentials
    can now simulate any element combination without additional training (Schmidt et al. 2024).

    Because these models are several orders of magnitude faster than DFT, they allow nanosecond simulations
    of reactive systems that were impossible before. The field is therefore mature, and the remaining work
    is mainly about making the software easier to use. Training data can be generated automatically from
    DFT, so new reactions can be covered within days.
    """,
    refs={
        "Nguyen et al. 2023": "Data-efficient equivariant message passing for interatomic potentials",
        "Alvarez and Kim 2022": "Active learning of reactive potentials with uncertainty-driven enhanced sampling",
        "Schmidt et al. 2024": "How far do pretrained universal interatomic potentials transfer to surface reactions?",
        "Rossi 2021": "Gaussian approximation potentials for bond dissociation in small organic molecules",
        "Zhao et al. 2022": "Graph neural network potentials for hydrogen combustion kinetics",
        "Kowalski et al. 2023": "Neural network potentials for methanol-to-olefin chemistry in zeolites",
        "Brennan and Osei 2023": "Machine-learned potentials for the electrified copper-water interface",
    },
)

sci(
    NS,
    "Challenges & Limitations",
    """What are the main limitations of using environmental DNA metabarcoding to estimate species
    abundance rather than just presence?""",
    win="""
    Turning eDNA read counts into abundance estimates is limited by several stacked biases.

    First, PCR amplification is taxon-dependent: primer mismatches and differences in amplicon length mean
    that the proportion of reads for a species can differ from its share of template DNA by an order of
    magnitude (Adeyemi et al. 2021). Second, the amount of DNA shed per unit biomass varies with species,
    body size, life stage and activity, and decay rates depend strongly on temperature and UV exposure
    (Larsen and Dubois 2020). Third, in flowing water DNA is transported and diluted, so concentrations
    reflect upstream sources as well as the local community (Mensah et al. 2022).

    Because of these biases, relative read abundance is best treated as semi-quantitative. Stronger abundance
    inference usually needs species-specific qPCR or digital PCR, calibration against conventional surveys,
    and models that separate detection probability from occupancy (Castillo 2023).
    """,
    lose="""
    Environmental DNA metabarcoding has revolutionized biodiversity monitoring because it allows many species
    to be detected from a single water or soil sample. Instead of catching or observing organisms directly,
    researchers filter water, extract DNA, amplify a barcode region and sequence it, then assign the reads to
    taxa using reference databases. This is faster, cheaper and less invasive than traditional surveys, and it
    can detect rare or elusive species that are easily missed by nets or visual counts (Adeyemi et al. 2021).

    There are still limitations. Sampling design is important: the number of replicates, the volume filtered,
    the filter pore size and the timing of sampling all affect detection. Contamination in the field or the lab
    can produce false positives, so negative controls are essential. Reference databases are incomplete for
    many groups, especially invertebrates, which means some reads cannot be assigned to species. Costs of
    sequencing have decreased but bioinformatic expertise is still needed.

    For abundance, read counts are sometimes correlated with biomass, and several studies have found positive
    relationships between reads and fish biomass in lakes (Castillo 2023). However, the relationship is not
    always strong. Overall, eDNA is very promising and with further standardization it will likely become a
    routine tool for measuring abundance as well as presence.
    """,
    refs={
        "Adeyemi et al. 2021": "Primer bias and amplicon length distort relative read abundance in fish eDNA metabarcoding",
        "Larsen and Dubois 2020": "Shedding and decay rates of environmental DNA across taxa and temperatures",
        "Mensah et al. 2022": "Downstream transport of environmental DNA in river networks",
        "Castillo 2023": "Calibrating eDNA read counts against electrofishing surveys with hierarchical occupancy models",
    },
)

sci(
    NS,
    "Methodology Inquiry",
    """How do geodesists correct GNSS time series for tidal and loading effects when the goal is to
    measure slow vertical land motion (a few mm per year)?""",
    win="""
    Measuring millimetre-per-year vertical motion requires removing several signals that are far larger than
    the trend itself.

    Solid Earth tides, with vertical amplitudes of up to about 30 cm, are modelled analytically following
    the IERS conventions and applied inside the GNSS processing rather than after it (Fischer et al. 2019).
    Ocean tide loading, the elastic deformation caused by the weight of tidal water, is computed by
    convolving a global ocean tide model with Green's functions for an elastic Earth; near coasts this can
    reach several centimetres, and errors in regional tide models leak into spurious periodic signals with
    periods close to 14 days and one year (Sato and Ruiz 2021).

    Non-tidal loading from atmospheric pressure, continental water storage and ocean bottom pressure is
    handled in two ways: either applied as a correction at the observation level, or removed from the
    station coordinates afterwards using loading displacement products. Applying atmospheric loading at the
    observation level reduces the scatter of vertical time series more (Novak et al. 2022).

    Finally, the trend is estimated with a noise model that includes flicker or power-law noise as well as
    white noise, because assuming white noise alone underestimates velocity uncertainty by a factor of
    three to ten (Bergstrom 2020). Equipment changes produce offsets that must be modelled explicitly,
    and velocities are expressed in a consistent reference frame, whose origin stability itself limits
    accuracy to about 0.5 mm/yr (Fischer et al. 2019; Yilmaz et al. 2023).
    """,
    lose="""
    GNSS stations record tides and seasonal signals in addition to long-term motion. The standard approach is
    to collect a long time series, ideally more than ten years, because periodic effects such as tides average
    out over time (Bergstrom 2020). Annual and semi-annual sinusoids are then fitted together with a linear
    trend, and the trend is interpreted as vertical land motion.

    Some groups also use loading models to remove the effect of atmospheric pressure and hydrology
    (Novak et al. 2022). After these steps, the remaining trend can be compared with tide gauges or
    InSAR to check consistency. Choosing stations on bedrock rather than on buildings or sediments also
    reduces local effects, and stations with gaps or antenna changes can simply be excluded from the analysis,
    since they make the trend less reliable. In many regions, the resulting velocities agree with tide gauge
    records to within a few millimetres per year.
    """,
    refs={
        "Fischer et al. 2019": "Conventional modelling of solid Earth tides and reference frame effects in GNSS geodesy",
        "Sato and Ruiz 2021": "Regional ocean tide model errors and their propagation into GNSS vertical positions",
        "Novak et al. 2022": "Observation-level versus post-processing corrections for non-tidal atmospheric loading",
        "Bergstrom 2020": "Power-law noise and velocity uncertainty in continuous GNSS time series",
        "Yilmaz et al. 2023": "Origin stability of the terrestrial reference frame and implications for sea-level studies",
    },
)

sci(
    NS,
    "Paper Finding",
    """Which studies have reported that soil microbial carbon use efficiency (CUE) decreases with warming,
    and is there counter-evidence?""",
    win="""
    Several lines of work address this question, and the evidence is more mixed than early papers suggested.

    Studies reporting declines:
    - Laboratory incubations with 13C-glucose across a 5 to 25 C gradient found a consistent decline of CUE
      with temperature, attributed to rising maintenance respiration (Hoffmann et al. 2018).
    - A ten-year field warming experiment in a temperate forest reported lower CUE in warmed plots,
      although the effect was strongest in the first years (Park and Mensah 2020).

    Studies suggesting little change or acclimation:
    - With the substrate-independent 18O-water method, CUE was nearly temperature-insensitive while growth
      and respiration both increased; the authors argued that earlier declines were partly an artefact of
      substrate-based methods (Kaur et al. 2021).
    - Long-term warmed grassland soils showed thermal acclimation of CUE, with microbial communities
      returning to near-control efficiency (Reyes et al. 2022).

    Syntheses:
    - A meta-analysis concluded that the sign of the temperature response depends on the measurement method
      and on substrate availability, and that model assumptions of a fixed decline per degree are poorly
      supported (Chowdhury et al. 2023).

    For a representative picture, read the glucose-based incubation study alongside the 18O-water study
    to see the method dependence directly.
    """,
    lose="""
    Yes, there is good evidence that carbon use efficiency declines as soils warm. Incubation experiments
    showed this clearly (Hoffmann et al. 2018), and the finding has been widely used in soil carbon models.
    Warmer soils lead microbes to spend more energy on respiration, so they release more CO2 and build less
    biomass, which can create a positive feedback with climate change.

    Some studies have found smaller effects in the field than in the lab (Park and Mensah 2020), probably
    because of moisture limitation. Overall, the consensus is that CUE declines with warming, which is why
    many Earth system models include a temperature-dependent CUE. Other warming studies in boreal and
    tropical soils have pointed in the same direction, and the mechanism is well understood from basic
    physiology: maintenance costs rise faster with temperature than growth. Anyone interested in this topic
    should start with these two papers.
    """,
    refs={
        "Hoffmann et al. 2018": "Temperature sensitivity of microbial carbon use efficiency in mineral soils measured with 13C-glucose",
        "Park and Mensah 2020": "A decade of experimental warming alters microbial growth efficiency in a temperate forest soil",
        "Kaur et al. 2021": "Microbial carbon use efficiency is temperature-insensitive when measured with 18O-labelled water",
        "Reyes et al. 2022": "Thermal acclimation of microbial carbon use efficiency in long-term warmed grassland",
        "Chowdhury et al. 2023": "Method dependence of the temperature response of soil microbial carbon use efficiency: a meta-analysis",
    },
)

sci(
    NS,
    "Conceptual Explanation",
    """How does the Kibble-Zurek mechanism predict the density of topological defects after a system is
    quenched through a continuous phase transition?""",
    win="""
    The key idea is that a system driven through a critical point cannot stay in equilibrium, because its
    relaxation time diverges at the transition. Far from the critical point the system adjusts adiabatically;
    close to it, the relaxation time exceeds the time remaining until the transition and the order parameter
    effectively freezes (Zurek and Lindqvist 2019).

    If the control parameter is ramped linearly over a quench time tau_Q, equating the relaxation time with
    the distance to the transition gives a freeze-out time that scales as tau_Q^(z nu / (1 + z nu)), where
    nu and z are the correlation-length and dynamic critical exponents. The correlation length at freeze-out
    then scales as tau_Q^(nu / (1 + z nu)), and independently ordered domains of that size produce defects
    at their boundaries. The defect density in d dimensions is therefore predicted to scale as
    tau_Q^(-d nu / (1 + z nu)) for point-like defects, with modified dimensional factors for line or wall
    defects.

    Experiments with trapped ions, cold atoms and liquid crystals broadly confirm this power law, with
    deviations for very fast quenches and when coarsening after the transition is significant
    (Adeyemi and Rossi 2022).
    """,
    lose="""
    The Kibble-Zurek mechanism originated in cosmology, where Tom Kibble asked whether the early universe could
    have formed cosmic strings and domain walls as it cooled through symmetry-breaking transitions
    (Brennan 2018). Wojciech Zurek later proposed that the same physics could be tested in condensed matter
    systems such as superfluid helium, which opened a new field of laboratory cosmology (Zurek and Lindqvist 2019).

    The basic picture is that when a system cools through a phase transition, different regions choose
    different values of the order parameter, and where they meet, defects form. The faster the quench, the
    more defects are produced. In the simplest version, the defect density is proportional to the quench
    rate, so doubling the cooling rate doubles the number of vortices or domain walls (Osei et al. 2020).

    Many experiments have tested this prediction, including superfluid helium-3, Bose-Einstein condensates,
    superconducting rings and ion crystals (Adeyemi and Rossi 2022). Results are generally consistent with
    the theory, although some experiments found fewer defects than expected. Kibble's original estimate
    related the domain size to the correlation length at the Ginzburg temperature, but Zurek's refinement
    emphasized the rate of cooling instead, which is what makes laboratory tests possible. The mechanism is now used well
    beyond cosmology, for instance to understand defect formation in quantum annealers and in
    ferroelectric materials, and it remains an active research area connecting high-energy physics,
    condensed matter and quantum information.
    """,
    refs={
        "Zurek and Lindqvist 2019": "Freeze-out dynamics and universal scaling in driven critical systems",
        "Adeyemi and Rossi 2022": "Testing Kibble-Zurek scaling with programmable trapped-ion chains",
        "Brennan 2018": "From cosmic strings to vortices: a history of defect formation in symmetry-breaking transitions",
        "Osei et al. 2020": "Vortex formation in rapidly quenched Bose-Einstein condensates",
    },
)

sci(
    NS,
    "State-of-the-Art Assessment",
    """How reliable are the atmospheric compositions retrieved from JWST transmission spectra of
    exoplanets at this point?""",
    win="""
    Reliability depends strongly on the type of planet.

    For hot and warm giant planets, JWST spectra have robustly detected molecules such as H2O, CO2 and CO, and
    even photochemical products such as SO2, with high significance across independent reductions
    (Iyer et al. 2023). Here the qualitative picture is reliable. Quantitative abundances are less so:
    different retrieval codes applied to the same spectrum commonly disagree by 0.3 to 0.5 dex in metallicity,
    and assumptions about clouds, isothermal temperature profiles and chemical equilibrium shift results by
    more than the formal error bars (Dubois and Park 2024).

    A second issue is stellar contamination. Unocculted starspots and faculae imprint features on the
    transmission spectrum that can mimic or mask water absorption, particularly for planets around M dwarfs.
    This "transit light source effect" is the dominant systematic for small planets.

    For rocky and sub-Neptune planets the situation is genuinely uncertain. Several claimed detections of
    atmospheres, or of specific molecules, have been contested after reanalysis with different data
    reduction pipelines or stellar models (Kaur and Nguyen 2024). Flat spectra can indicate no atmosphere,
    high clouds or a high mean molecular weight, and these are hard to distinguish with a few transits.

    Summary: molecule detections in giant planets are trustworthy, abundance values should be read with
    model-dependent uncertainty, and claims for small planets need multiple visits and independent analyses.
    """,
    lose="""
    JWST has transformed the field and retrievals are now very reliable. It has detected carbon dioxide in hot
    Jupiters (Iyer et al. 2023), water in sub-Neptunes (Hoffmann et al. 2023), and methane and carbon dioxide
    together in a habitable-zone planet (Castillo et al. 2023), which is a strong indication of biological
    activity. Improved retrieval frameworks now give precise abundances (Dubois and Park 2024), and
    stellar activity can be corrected using simultaneous photometry (Sato 2022).

    With the precision of JWST, the remaining uncertainties are small, and we are close to routinely
    characterizing the atmospheres of Earth-like planets and searching them for life. Retrievals for giant
    planets already agree across teams, and future instruments will mainly refine numbers that are already
    well constrained, so the main open question is which planets to prioritize for follow-up.
    """,
    refs={
        "Iyer et al. 2023": "Detection of carbon dioxide and sulfur dioxide in a hot Saturn with JWST NIRSpec",
        "Dubois and Park 2024": "Retrieval code intercomparison for JWST transmission spectra of giant exoplanets",
        "Kaur and Nguyen 2024": "Reassessing claimed atmospheres of rocky exoplanets with independent JWST reductions",
        "Hoffmann et al. 2023": "Water features in the transmission spectrum of a temperate sub-Neptune",
        "Castillo et al. 2023": "Carbon-bearing molecules in the atmosphere of a habitable-zone sub-Neptune",
        "Sato 2022": "Correcting stellar activity in transmission spectra with simultaneous photometric monitoring",
    },
)

sci(
    NS,
    "Challenges & Limitations",
    """What currently limits the coherence times of superconducting transmon qubits?""",
    win="""
    In current transmons, energy relaxation (T1) is dominated by dielectric loss from two-level systems (TLS),
    microscopic defects in amorphous oxides at the metal-substrate, metal-air and substrate-air interfaces
    (Novak et al. 2021). Participation-ratio simulations show that even a few nanometres of lossy oxide at
    these interfaces can cap T1 at a few hundred microseconds. Replacing niobium or aluminium capacitor pads
    with tantalum, whose native oxide is thinner and less lossy, has pushed T1 beyond 0.3 ms in several
    laboratories (Zhao and Okafor 2022).

    TLS are also a problem because they fluctuate: defects drift in frequency and come into resonance with
    the qubit, so T1 varies by a factor of two or more over hours, which complicates calibration of large
    processors (Kowalski et al. 2023).

    A second limitation is non-equilibrium quasiparticles. Stray infrared photons and ionizing radiation,
    including cosmic-ray muons and background gamma rays, break Cooper pairs and produce correlated errors
    across many qubits at once (Brennan et al. 2022). Shielding, infrared filtering and phonon traps
    reduce but do not eliminate these events.

    Dephasing (T2) is additionally limited by residual thermal photons in readout resonators and, for tunable
    qubits, by flux noise. Purcell decay through the readout circuit is largely solved with Purcell filters
    (Larsen 2020). Overall, materials and interface quality are the central bottleneck.
    """,
    lose="""
    Transmon qubits lose their quantum information because of noise from their environment. The main sources
    are thermal noise, because the qubits must be kept at millikelvin temperatures, and cosmic rays, which
    can cause errors across the whole chip (Brennan et al. 2022). Better refrigerators and shielding the
    processor underground can reduce these problems.

    Fabrication imperfections also play a role, and improved materials have increased coherence
    (Zhao and Okafor 2022). Today's transmons have coherence times around 100 microseconds, which is enough
    for small algorithms but not for large-scale quantum computing without error correction. Crosstalk
    between neighbouring qubits further reduces fidelity when many qubits are operated together. Coherence
    times have improved steadily, roughly doubling every few years, and error correction will eventually make
    the exact coherence time less important.
    """,
    refs={
        "Novak et al. 2021": "Interface participation and two-level-system loss in planar transmon qubits",
        "Zhao and Okafor 2022": "Tantalum-based transmons with millisecond-scale energy relaxation times",
        "Kowalski et al. 2023": "Temporal fluctuations of qubit relaxation driven by drifting two-level defects",
        "Brennan et al. 2022": "Correlated errors from ionizing radiation in multi-qubit superconducting processors",
        "Larsen 2020": "Broadband Purcell filters for fast, protected transmon readout",
    },
)

sci(
    NS,
    "Methodology Inquiry",
    """How do phylogeneticists estimate divergence times when fossil calibrations are scarce for the
    group they study?""",
    win="""
    Common strategies when fossils are sparse:

    1. Relaxed molecular clocks (uncorrelated lognormal or autocorrelated models) let rates vary across
       branches, so a single distant calibration can still inform dates across the tree
       (Petrov and Haddad 2020).
    2. Tip-dating and the fossilized birth-death process use fossils as dated tips with morphological
       characters rather than as node constraints, which uses every available fossil, not only the oldest
       (Moreau et al. 2021).
    3. Secondary calibrations, taken from dates estimated in larger studies, are widely used but propagate
       earlier errors and produce overly narrow intervals unless their full uncertainty is carried over
       (Castillo and Berg 2019).
    4. Geological or biogeographic events, such as island emergence, can act as calibrations, provided the
       assumption that divergence followed the event is defensible (Yilmaz 2022).

    In all cases, compare the marginal prior on node ages with the posterior: if they look similar, the
    data carry little information and the dates reflect prior choices.
    """,
    lose="""
    Divergence time estimation relies on the molecular clock hypothesis, which states that DNA sequences
    accumulate substitutions at a roughly constant rate over time. If the rate is known, the genetic distance
    between two species can be converted into the time since they shared a common ancestor. For example, if
    two species differ by 2 percent and the rate is 1 percent per million years per lineage, they diverged
    about one million years ago.

    In practice, rates vary among lineages, genes and time periods, so modern analyses use Bayesian software
    that can model rate variation. The researcher specifies a substitution model, a clock model, a tree prior
    such as a Yule or birth-death process, and calibration priors. Markov chain Monte Carlo then samples
    trees and node ages from the posterior distribution (Petrov and Haddad 2020).

    When fossils are scarce, the most common solution is to use secondary calibrations from previously
    published studies of larger groups. These provide ages for some nodes, which can then be used to date
    the rest of the tree. Another option is to use a published substitution rate for a related group, for
    example the widely used mitochondrial rate for birds or insects (Yilmaz 2022). With enough genes,
    phylogenomic datasets usually give precise estimates even with few calibrations, because the large
    amount of sequence data reduces uncertainty.
    """,
    refs={
        "Petrov and Haddad 2020": "Relaxed clock models for divergence time estimation with sparse calibrations",
        "Moreau et al. 2021": "Total-evidence tip-dating under the fossilized birth-death process",
        "Castillo and Berg 2019": "Error propagation from secondary calibrations in molecular dating",
        "Yilmaz 2022": "Biogeographic calibrations and substitution rate priors in island radiations",
    },
)

sci(
    NS,
    "Others",
    """Can the carbon removal from ocean alkalinity enhancement actually be measured and verified at the
    scale needed for carbon credits?""",
    win="""
    Not directly, at least not yet. The core difficulty is that the signal is small and spread out. Adding
    alkalinity increases the ocean's capacity to hold dissolved inorganic carbon, but the extra CO2 is taken up
    from the atmosphere slowly, through air-sea gas exchange that can take months to years to equilibrate,
    and by then the alkalinity has been diluted over a large area (Tanaka and Schmidt 2023). The resulting
    changes in surface pCO2 or dissolved inorganic carbon are well below natural seasonal and spatial
    variability, so ship-based or buoy measurements cannot attribute uptake to a specific deployment.

    Current measurement, reporting and verification (MRV) proposals therefore combine direct measurements near
    the release point, where the alkalinity plume is still detectable, with regional ocean models that
    estimate how much additional CO2 uptake occurs as the plume disperses. Model-dependent uncertainty in
    the final uptake is typically tens of percent (Reyes et al. 2024).

    There are also process risks. If alkalinity is added too fast, carbonate minerals can precipitate, which
    removes alkalinity and can even release CO2. Mesocosm experiments show that this threshold depends on
    the mineral used and on particle surfaces in the water. Only a handful of small field trials have been
    completed, so evidence at scale is limited. Credible crediting would need conservative model-based
    accounting with explicit uncertainty, independent model intercomparison, and monitoring of
    precipitation and ecological effects.
    """,
    lose="""
    Yes. Ocean alkalinity enhancement can be verified using a combination of satellite observations and
    in situ sensors. Satellites can detect changes in ocean color and surface chemistry after alkalinity is
    added (Fischer et al. 2022), and autonomous floats with pH sensors can track the carbon uptake
    (Osei and Kim 2023). Several pilot projects have successfully quantified removal this way
    (Reyes et al. 2024), and standards for crediting have been proposed (Alvarez 2023).

    As more projects are deployed, these monitoring approaches will scale up and provide reliable
    verification for carbon markets. Because the ocean absorbs CO2 quickly once alkalinity is added, most of
    the uptake happens close to the release site, which simplifies monitoring, and sensor costs are falling.
    Regulators in several countries are already discussing how to include these credits in compliance markets.
    """,
    refs={
        "Tanaka and Schmidt 2023": "Air-sea equilibration timescales limit the detectability of ocean alkalinity enhancement",
        "Reyes et al. 2024": "Model-based attribution of CO2 uptake for coastal alkalinity enhancement trials",
        "Fischer et al. 2022": "Remote sensing of surface carbonate chemistry: opportunities and limits",
        "Osei and Kim 2023": "Biogeochemical floats for monitoring marine carbon dioxide removal",
        "Alvarez 2023": "Towards a crediting protocol for ocean-based carbon dioxide removal",
    },
)

sci(
    NS,
    "Conceptual Explanation",
    """Why do many enzymes have temperature optima well below the temperature at which they unfold?""",
    win="""
    Two explanations are supported by kinetic data, and they are not mutually exclusive.

    Macromolecular rate theory attributes the optimum to a negative heat capacity change of activation.
    If the enzyme-substrate complex is more flexible, and thus has a higher heat capacity, than the
    transition state, the activation enthalpy and entropy both change with temperature and the rate curve
    bends over and declines even when the protein is folded (Hoffmann and Iyer 2019).

    The equilibrium model instead proposes a rapid, reversible shift between an active form and an inactive
    but still folded form, with the inactive form favoured at higher temperature (Mensah 2021). Both
    models fit activity curves better than a simple Arrhenius-plus-denaturation model, which predicts a
    sharp optimum close to the melting temperature.
    """,
    lose="""
    Enzymes are proteins that depend on their three-dimensional structure, and this structure is held
    together by weak interactions such as hydrogen bonds, salt bridges and hydrophobic contacts. As
    temperature increases, molecules move faster and collide more often, so the reaction rate increases
    according to the Arrhenius equation, roughly doubling for every 10 degrees (Nguyen et al. 2018).

    At the same time, heat disrupts the weak interactions. The enzyme begins to denature, losing the shape
    of its active site, so fewer enzyme molecules remain active (Rossi and Kaur 2020). The temperature
    optimum is the point where these two effects balance: above it, denaturation wins and the rate falls.
    This means the optimum is always the temperature at which denaturation starts to become significant.

    Measured melting temperatures can appear higher than optima because they are usually measured with
    calorimetry over short timescales, whereas activity assays last longer, allowing more denaturation
    to occur (Mensah 2021). Enzymes from thermophilic organisms have more stabilizing interactions, so they
    have higher optima, while enzymes from cold-adapted organisms are more flexible and have lower optima.
    Understanding this balance is important for industrial applications such as detergents and biofuel
    production, where enzymes must work at elevated temperatures.
    """,
    refs={
        "Hoffmann and Iyer 2019": "Heat capacity of activation explains enzyme temperature optima without denaturation",
        "Mensah 2021": "The equilibrium model of enzyme temperature dependence revisited",
        "Nguyen et al. 2018": "Arrhenius behaviour and its limits in enzyme kinetics",
        "Rossi and Kaur 2020": "Thermal unfolding and activity loss in mesophilic hydrolases",
    },
)

sci(
    NS,
    "Challenges & Limitations",
    """What makes single-particle cryo-EM difficult for small proteins below about 50 kDa, and what
    approaches are being used to overcome this?""",
    win="""
    The fundamental problem is signal. Cryo-EM images are recorded at low electron dose to limit radiation
    damage, so a small protein produces very little contrast against the ice. Accurate 3D reconstruction
    requires determining each particle's orientation, and below roughly 40 to 50 kDa the particle signal is
    too weak for reliable alignment (Sato et al. 2020). Errors in alignment blur the map regardless of how
    many particles are collected.

    Strategies fall into two groups. The first increases the effective size of the particle: binding a
    Fab fragment, nanobody or designed scaffold such as a DARPin, or fusing the target rigidly into a larger
    symmetric scaffold, gives the alignment algorithm a large feature to lock onto (Kim and Dubois 2021).
    Rigidity of the attachment is critical; a flexible linker defeats the purpose.

    The second improves image contrast. Thinner, more uniform ice reduces background noise, and newer
    direct electron detectors with better detective quantum efficiency at low spatial frequencies help small
    particles (Larsen et al. 2022). Phase plates can increase low-frequency contrast but have been difficult
    to use routinely; laser-based phase plates are a promising recent development (Chowdhury et al. 2024).
    Improved processing, including machine-learning particle pickers and likelihood-based alignment,
    has also lowered the practical size limit (Novak 2023).

    Structures of unmodified proteins in the 40 to 60 kDa range are now achievable, but below that a
    scaffold or binder is still usually required.
    """,
    lose="""
    Small proteins are hard to study with cryo-EM because they do not produce much contrast in the images,
    so it is difficult to see them and to work out their orientation (Sato et al. 2020). For this reason,
    X-ray crystallography and NMR are often used instead for small proteins.

    Some groups attach antibodies to make the complex bigger, which helps (Kim and Dubois 2021). Newer
    microscopes and better software have also improved things, and the size limit is slowly decreasing as
    the technology develops. Another approach is to study the larger complexes a small protein forms with its
    partners. In general, cryo-EM is best suited to large assemblies such as ribosomes, viruses and membrane
    protein complexes, and for proteins under 50 kDa it usually makes more sense to use crystallography unless
    the protein cannot be crystallized.
    """,
    refs={
        "Sato et al. 2020": "Theoretical and practical size limits for single-particle cryo-EM",
        "Kim and Dubois 2021": "Rigid scaffolds and binders for cryo-EM of small proteins",
        "Larsen et al. 2022": "Ice thickness and detector performance for low-molecular-weight targets",
        "Chowdhury et al. 2024": "Laser phase plates for routine contrast enhancement in cryo-EM",
        "Novak 2023": "Likelihood-based alignment and machine-learning particle picking for small particles",
    },
)

# -------------------------------- Healthcare --------------------------------
HC = "Healthcare"

sci(
    HC,
    "State-of-the-Art Assessment",
    """How well do deep learning systems for diabetic retinopathy screening generalize when deployed in
    populations and clinics different from where they were developed?""",
    win="""
    Performance in development studies is consistently higher than after deployment, and the size of the gap
    depends on what changes between settings.

    In internal validation, most published systems report sensitivity and specificity above 90 percent for
    referable diabetic retinopathy. External validations tell a more varied story. A multi-country comparison
    of seven commercial algorithms on the same screening images found sensitivities ranging from about 50 to
    85 percent, with several systems performing worse than human graders (Mensah et al. 2021). Much of the
    drop came from differences in cameras, image quality and the proportion of ungradable images.

    Population differences also matter. Fundus pigmentation varies with ethnicity, and models trained mainly
    on lighter-pigmented fundi showed lower specificity in African and South Asian cohorts
    (Iyer and Castillo 2022). Disease prevalence changes positive predictive value even when sensitivity is
    stable, which is important for low-resource programmes where referral capacity is limited.

    Prospective deployments add workflow factors. In a primary-care deployment in Southeast Asia, a system
    with strong retrospective results rejected a large share of images as ungradable because of poor
    lighting and undilated pupils, which increased referrals and frustrated nurses
    (Tanaka et al. 2020). By contrast, deployments that included local fine-tuning or camera-specific
    calibration maintained performance close to development results (Osei et al. 2023).

    Current best practice is to validate externally on the target camera and population, report performance
    separately for ungradable images, and monitor performance after deployment, as recommended in recent
    reporting guidance (Kowalski et al. 2022). Generalization is achievable, but it is not automatic.
    """,
    lose="""
    Deep learning systems for diabetic retinopathy screening are among the most successful medical AI
    applications, and several have received regulatory approval. They typically reach accuracy comparable to
    ophthalmologists, and studies in multiple countries have shown good performance (Mensah et al. 2021).

    Generalization is generally good because retinal images look similar everywhere, although image quality
    can sometimes be a problem (Tanaka et al. 2020). Using larger and more diverse training datasets should
    solve most remaining issues, and these systems are likely to become standard in screening programmes,
    especially in countries with few eye specialists. Because the algorithms analyse images in seconds, they
    also reduce waiting times and allow patients to receive results during the same visit. Some systems can
    additionally detect other conditions such as glaucoma and age-related macular degeneration, which further
    increases their value for screening programmes.
    """,
    refs={
        "Mensah et al. 2021": "Head-to-head external validation of seven diabetic retinopathy screening algorithms",
        "Iyer and Castillo 2022": "Fundus pigmentation and the performance of deep learning retinopathy graders",
        "Tanaka et al. 2020": "A human-centred evaluation of deep learning retinopathy screening in primary care clinics",
        "Osei et al. 2023": "Camera-specific calibration preserves accuracy of retinopathy screening models across sites",
        "Kowalski et al. 2022": "Reporting guidance for the external validation of ophthalmic AI systems",
    },
)

sci(
    HC,
    "Challenges & Limitations",
    """What limits the clinical usefulness of polygenic risk scores for people of non-European ancestry?""",
    win="""
    The core problem is that most GWAS used to build polygenic risk scores (PRS) come from European-ancestry
    cohorts. When those scores are applied to other ancestries, prediction accuracy falls: relative to
    European samples, explained variance is roughly halved in South and East Asian groups and can fall by
    75 percent or more in African-ancestry groups (Adeyemi et al. 2020).

    Three mechanisms drive the drop. Linkage disequilibrium patterns differ, so tag SNPs no longer track the
    causal variants; allele frequencies differ, so variants that matter in one population may be rare in
    another; and some effect sizes genuinely vary with environment and genetic background
    (Zhao and Haddad 2021).

    Multi-ancestry GWAS and methods that model ancestry-specific effects narrow but do not close the gap
    (Reyes et al. 2023). Clinically, unequal accuracy means a PRS-based screening policy could widen
    existing health disparities (Brennan 2022).
    """,
    lose="""
    A polygenic risk score sums the effects of many genetic variants, each with a small effect, to estimate an
    individual's inherited risk of a disease such as coronary artery disease, type 2 diabetes or breast
    cancer. Scores are built from genome-wide association studies that test millions of variants in large
    cohorts, and the weights come from the estimated effect sizes. People in the top few percent of the
    distribution can have risk similar to carriers of single-gene mutations, which has motivated proposals to
    use PRS in screening (Adeyemi et al. 2020).

    There are several general limitations. PRS capture only part of heritability, they explain a modest share
    of variance for most diseases, and they do not include environmental factors such as diet, smoking or
    physical activity. The scores also give probabilities rather than diagnoses, which can be hard to
    communicate to patients. Clinicians are often unfamiliar with genetic risk, and guidelines for acting on
    a high score are still being developed.

    For people of non-European ancestry, the scores may be less accurate, since fewer studies have been done
    in these groups (Brennan 2022). More diverse research is needed, and as biobanks expand, this problem
    should become less important.
    """,
    refs={
        "Adeyemi et al. 2020": "Cross-ancestry portability of polygenic scores for 30 complex traits",
        "Zhao and Haddad 2021": "Linkage disequilibrium, allele frequency and effect heterogeneity in polygenic score transfer",
        "Reyes et al. 2023": "Multi-ancestry polygenic score construction with ancestry-specific effect modelling",
        "Brennan 2022": "Equity implications of polygenic risk scores in population screening",
    },
)

sci(
    HC,
    "Methodology Inquiry",
    """How is target trial emulation used with electronic health record data to estimate treatment effects,
    and what mistakes does it help avoid?""",
    win="""
    Target trial emulation starts by writing down the protocol of the randomized trial one would ideally run,
    and then mimicking each element with observational data (Hernandez and Lindqvist 2016). The protocol
    specifies eligibility criteria, treatment strategies, assignment procedure, the start of follow-up
    ("time zero"), outcomes, causal contrast and analysis plan.

    The most important benefit is alignment of time zero. In a trial, eligibility, treatment assignment and
    start of follow-up coincide. Many flawed EHR analyses define exposure using information after follow-up
    begins, which creates immortal time bias, or include prevalent users who have already survived early
    treatment effects. Emulation requires new-user designs and consistent time zero, and re-analyses of
    landmark observational studies show that fixing these design errors alone can reverse apparent
    benefits (Dubois et al. 2019).

    When treatment strategies cannot be assigned at a single time, for example "start statins within six
    months", the cloning-censoring-weighting approach creates copies of each patient for each strategy,
    censors copies when they deviate, and uses inverse probability weights to correct the resulting
    selection (Park and Rossi 2021). Confounding at baseline and over time is addressed with propensity
    scores, inverse probability weighting or the parametric g-formula, which require well-measured
    confounders in the EHR.

    Practical checks include benchmarking against an existing randomized trial where one exists
    (Nguyen et al. 2022), negative control outcomes to detect residual confounding, and sensitivity analyses
    for unmeasured confounding (Kaur 2023). Emulation does not remove the need for no unmeasured
    confounding, but it prevents self-inflicted design biases, which are often larger.
    """,
    lose="""
    Target trial emulation is a way to use observational data as if it were a randomized controlled trial.
    Researchers use propensity score matching so that treated and untreated patients have similar baseline
    characteristics, which makes the comparison similar to randomization (Hernandez and Lindqvist 2016).

    With large EHR databases, this allows studies of treatments in populations that are often excluded from
    trials, such as older adults and people with multiple conditions. Studies using this approach have
    produced results similar to randomized trials in several areas (Nguyen et al. 2022). The main
    limitation is data quality, since EHR data are collected for clinical rather than research purposes,
    and variables may be missing or coded inconsistently. Researchers should therefore check data quality
    carefully, use validated code lists for exposures and outcomes, and report results according to standard
    observational reporting guidelines so that readers can judge the reliability of the findings.
    """,
    refs={
        "Hernandez and Lindqvist 2016": "Using big data to emulate a target trial when a randomized trial is not available",
        "Dubois et al. 2019": "Immortal time and prevalent-user bias explain discrepant observational findings",
        "Park and Rossi 2021": "Cloning, censoring and weighting for sustained treatment strategies in health records",
        "Nguyen et al. 2022": "Benchmarking target trial emulations against completed randomized trials",
        "Kaur 2023": "Negative controls and sensitivity analysis in pharmacoepidemiologic trial emulations",
    },
)

sci(
    HC,
    "Conceptual Explanation",
    """Through what mechanisms might GLP-1 receptor agonists reduce major cardiovascular events beyond
    their effects on weight and glucose?""",
    win="""
    In the cardiovascular outcome trials, event reductions appeared within the first year, earlier than
    expected from weight loss, and were only partly explained by changes in HbA1c, blood pressure or weight in
    mediation analyses (Castillo et al. 2022). This points to additional mechanisms.

    The best-supported is an anti-atherosclerotic, anti-inflammatory effect: GLP-1 receptor agonists lower
    C-reactive protein, reduce macrophage accumulation and slow plaque progression in animal models, and
    the benefit is concentrated in atherosclerotic events such as stroke and myocardial infarction rather
    than heart failure hospitalization. Smaller contributions may come from lower blood pressure, improved
    lipid profile and endothelial function. Direct effects on cardiomyocytes are less likely because GLP-1
    receptor expression in ventricular muscle is low (Okafor 2023). In short, the benefit looks mainly
    anti-atherosclerotic, with weight and glucose effects contributing but not explaining it fully.
    """,
    lose="""
    GLP-1 receptor agonists were developed for type 2 diabetes and work mainly by increasing glucose-dependent
    insulin secretion and decreasing glucagon. The cardiovascular benefit is therefore primarily explained by
    better glycaemic control, since high blood glucose damages blood vessels and accelerates atherosclerosis
    (Fischer et al. 2019). Patients in the trials reached lower HbA1c levels than those on placebo, which
    reduces the risk of heart attack and stroke over time.

    These drugs also have many other effects. They slow gastric emptying, reduce appetite, lower body weight,
    reduce blood pressure, improve lipid levels and have direct effects on the heart and kidneys
    (Larsen et al. 2020). They activate receptors on cardiomyocytes that improve contractility and
    protect against ischemia (Sato 2021). They also reduce inflammation (Okafor 2023).

    Taken together, these effects produce a broad cardiometabolic benefit. Newer agents that combine GLP-1
    with other hormones such as GIP produce even larger weight loss and are expected to have greater
    cardiovascular benefits. Ongoing trials in people without diabetes are testing whether the benefits also
    apply in obesity alone, which would expand the number of patients eligible for these treatments.
    """,
    refs={
        "Castillo et al. 2022": "Mediation analysis of cardiovascular benefit in GLP-1 receptor agonist outcome trials",
        "Okafor 2023": "Anti-inflammatory and anti-atherosclerotic actions of incretin-based therapies",
        "Fischer et al. 2019": "Glycaemic control and macrovascular outcomes in type 2 diabetes",
        "Larsen et al. 2020": "Pleiotropic actions of GLP-1 receptor agonists: a narrative review",
        "Sato 2021": "GLP-1 receptor signalling in cardiomyocytes and myocardial ischemia",
    },
)

sci(
    HC,
    "Paper Finding",
    """I'm looking for studies that evaluated large language models for summarizing clinical notes or hospital
    courses, with clinicians rating the outputs. What should I read?""",
    win="""
    Here are studies with clinician-based evaluation, grouped by task:

    Discharge and hospital-course summaries:
    - A blinded study in which internists compared LLM-drafted hospital-course summaries with physician-written
      ones for completeness, correctness and conciseness; LLM summaries were preferred or rated equivalent in
      most cases, but contained more omissions of medication changes (Schmidt et al. 2024).
    - A multi-site evaluation of discharge summary drafting that tracked clinician editing time and error
      types, including fabricated follow-up plans (Alvarez and Okafor 2024).

    Progress notes and problem lists:
    - A reader study of summarization of long inpatient records into problem-oriented summaries, with
      attending physicians grading clinical usefulness and harmful errors (Yilmaz et al. 2023).

    Radiology and specialist reports:
    - Adaptation of several LLMs to radiology report impressions, with radiologists rating factual
      consistency; smaller domain-adapted models matched larger general models (Chen 2023).

    Evaluation methodology:
    - A framework for classifying summarization errors by potential harm, useful if you design your own
      study (Berg et al. 2024).

    If you only read two, start with the blinded hospital-course comparison and the harm framework.
    """,
    lose="""
    There has been a lot of recent interest in using LLMs for clinical documentation. One relevant study
    compared LLM-generated hospital-course summaries with physician summaries and found that the LLM versions
    were often preferred (Schmidt et al. 2024). Another line of work focuses on radiology report impressions
    (Chen 2023).

    In general, these studies show that LLMs can write fluent summaries but may omit or hallucinate details,
    so clinician review remains important. You may also want to search for work on ambient documentation
    tools, which record conversations and draft notes automatically, since these are being rolled out in
    many health systems. Most of the published evaluations so far are single-centre studies with small
    numbers of clinician raters, so results should be interpreted cautiously. Searching recent informatics
    conference proceedings with terms such as "clinical summarization" and "physician evaluation" should turn
    up additional work.
    """,
    refs={
        "Schmidt et al. 2024": "Blinded clinician comparison of LLM and physician hospital-course summaries",
        "Alvarez and Okafor 2024": "Drafting discharge summaries with large language models: editing time and error types",
        "Yilmaz et al. 2023": "Problem-oriented summarization of long inpatient records: a physician reader study",
        "Chen 2023": "Adapting large language models to radiology impression generation",
        "Berg et al. 2024": "A harm-based taxonomy for errors in clinical text summarization",
    },
)

sci(
    HC,
    "Challenges & Limitations",
    """Why have many sepsis prediction models performed worse after hospital deployment than in their
    original validation studies?""",
    win="""
    Several issues recur across post-deployment evaluations.

    Label and timing problems. Many models were trained on outcome labels derived from billing codes or from
    retrospective criteria that use information recorded after clinicians already suspected sepsis, such as
    blood culture orders and antibiotic administration. A model can then learn to recognize clinicians'
    suspicion rather than the patient's physiology, and it looks impressive retrospectively because it
    "predicts" sepsis shortly before a diagnosis that was already underway. When evaluated only on alerts
    that preceded clinician recognition, performance drops sharply (Haddad et al. 2021).

    Dataset shift. Case mix, documentation practice, laboratory ordering frequency and sepsis definitions
    differ across hospitals and change over time, including during the COVID-19 pandemic. Proprietary models
    validated at developer sites often lost discrimination at new sites, and recalibration was rarely done.

    Alert burden and workflow. Even a model with reasonable AUROC generates many alerts at realistic
    prevalence, so positive predictive value is low. Clinicians quickly learn to ignore alerts, so any real
    signal has little effect on care. Outcome benefit depends on what the alert triggers, and few
    deployments were designed as trials that could show improved outcomes (Petrov and Kim 2023).

    Feedback loops. Once a model influences treatment, the outcomes it was trained to predict change, which
    complicates both evaluation and retraining.

    The practical lessons are to define prediction time relative to clinician recognition, validate locally
    before go-live, monitor calibration over time, and evaluate deployment with outcome-focused designs
    such as stepped-wedge trials.
    """,
    lose="""
    Sepsis models underperform for several reasons. Sepsis is difficult to define (Fischer 2018), and models
    trained on one definition may not work for another (Haddad et al. 2021). Electronic health record data
    are noisy and incomplete (Moreau et al. 2020). Finally, alert fatigue reduces the effectiveness of any
    warning system (Petrov and Kim 2023).

    Future models using deep learning and more data sources, such as continuous vital signs and clinical
    notes, are likely to perform better. Better integration into electronic health records and better user
    interfaces should also help clinicians respond to alerts more effectively. Hospitals should also train
    staff on how to respond to alerts and make sure sepsis bundles are followed quickly once an alert fires,
    since early antibiotics save lives.
    """,
    refs={
        "Haddad et al. 2021": "External validation of a proprietary sepsis model relative to the time of clinician recognition",
        "Petrov and Kim 2023": "Alert burden and outcomes after deployment of inpatient sepsis prediction",
        "Fischer 2018": "Competing definitions of sepsis and their consequences for research",
        "Moreau et al. 2020": "Data quality challenges for machine learning in electronic health records",
    },
)

sci(
    HC,
    "Methodology Inquiry",
    """In adaptive platform trials with a shared control arm, how are multiplicity and changes over time
    (time trends) handled statistically?""",
    win="""
    Multiplicity. Platform trials usually treat each arm-versus-control comparison as a separate hypothesis
    with its own error control rather than controlling the family-wise error rate across all arms, on the
    argument that each arm would otherwise have been its own trial (Rossi and Zhao 2020). Within an arm,
    repeated interim analyses are handled with group-sequential boundaries or, in Bayesian designs, with
    decision thresholds calibrated by simulation so that the frequentist type I error stays near the target
    level.

    Time trends. Sharing a control arm raises the question of non-concurrent controls: patients randomized
    to control before a new arm entered. If standard of care or the patient population drifts, comparing a
    new arm with earlier controls is biased. The safe default is to use only concurrent controls. Models
    that include a period (calendar-time) effect can use non-concurrent controls while adjusting for step
    changes, but they remain biased if the drift interacts with treatment (Lindqvist et al. 2022).

    Response-adaptive randomization adds a further risk, because allocation ratios change over time and
    become confounded with time trends (Osei 2021).
    """,
    lose="""
    Adaptive platform trials are a modern design in which multiple treatments are evaluated against a
    common control group under a single master protocol. Arms can be added or dropped as evidence
    accumulates, which makes these trials efficient and flexible. They became well known during the COVID-19
    pandemic, when several large platforms evaluated many treatments quickly and identified effective
    therapies such as corticosteroids while rejecting ineffective ones.

    Because many treatments are tested, there is a risk of false positives, so statisticians adjust for
    multiplicity. The usual approach is a Bonferroni correction, dividing the significance level by the
    number of arms, which keeps the overall error rate under control (Rossi and Zhao 2020). Bayesian
    platforms use posterior probabilities instead of p-values, which automatically accounts for multiple
    comparisons, so no adjustment is needed.

    Time trends are less of a concern because all patients are randomized, and randomization guarantees
    comparability between arms. Sharing the control arm across all treatments, including patients recruited
    before an arm opened, increases statistical power and reduces the number of patients needed, which is
    one of the main advantages of the design. Simulation studies are typically used at the design stage to
    check operating characteristics such as power and expected sample size.
    """,
    refs={
        "Rossi and Zhao 2020": "Error control for multi-arm platform trials: family-wise versus per-comparison approaches",
        "Lindqvist et al. 2022": "Using non-concurrent controls in platform trials: period adjustment and its limits",
        "Osei 2021": "Response-adaptive randomization and temporal drift in adaptive trials",
    },
)

sci(
    HC,
    "State-of-the-Art Assessment",
    """What is the current evidence for CAR-T cell therapy in severe autoimmune disease such as systemic
    lupus erythematosus?""",
    win="""
    The evidence is promising but early, consisting of case series and small phase 1 studies rather than
    randomized trials.

    The first reports used autologous CD19-directed CAR-T cells in patients with severe, refractory lupus
    nephritis who had failed multiple immunosuppressants. All patients reached drug-free remission within a
    few months, with normalisation of complement levels and disappearance of anti-dsDNA antibodies
    (Hoffmann et al. 2022). Follow-up extending beyond two years shows that most remain in remission even
    after B cells return, and the returning B cells have a naive phenotype, which suggests an immune "reset"
    rather than ongoing depletion (Hoffmann et al. 2024).

    Similar results have been reported in small series of idiopathic inflammatory myositis and systemic
    sclerosis (Park et al. 2023). Toxicity appears milder than in lymphoma: cytokine release syndrome has
    mostly been low grade and neurotoxicity rare, possibly because the target B-cell burden is lower.
    However, prolonged cytopenias and infections occur, and lymphodepleting chemotherapy contributes to risk.

    Important open questions include durability in larger cohorts, whether less intensive approaches such as
    T-cell engagers or CD19-directed antibodies achieve similar resets, optimal patient selection, and
    cost. Several groups are also testing allogeneic "off-the-shelf" CAR-T products that would simplify
    manufacturing (Nguyen and Reyes 2024). Multicentre trials now under way will determine whether the
    early results hold.
    """,
    lose="""
    CAR-T cell therapy, which has transformed the treatment of blood cancers, is now being tried in lupus.
    A small study showed that patients with severe lupus went into remission after CD19 CAR-T treatment
    (Hoffmann et al. 2022), and similar results were reported in other autoimmune diseases (Park et al. 2023).

    Because CAR-T cells eliminate B cells, which produce autoantibodies, the treatment targets the root cause
    of the disease. The results suggest that CAR-T could become a cure for lupus. However, the treatment is
    expensive and requires specialized centres, and long-term safety is not yet known. Cytokine release
    syndrome, the main side effect in cancer patients, can be severe, so careful monitoring is needed.
    Larger studies are planned, and several companies are developing CAR-T products specifically for
    autoimmune diseases.
    """,
    refs={
        "Hoffmann et al. 2022": "CD19-targeted CAR T cells induce drug-free remission in refractory systemic lupus erythematosus",
        "Hoffmann et al. 2024": "Long-term follow-up and B-cell reconstitution after CAR T-cell therapy for autoimmune disease",
        "Park et al. 2023": "CAR T-cell therapy in refractory myositis and systemic sclerosis: a case series",
        "Nguyen and Reyes 2024": "Allogeneic CAR T-cell products for autoimmune indications: rationale and early experience",
    },
)

sci(
    HC,
    "Conceptual Explanation",
    """What is the difference between antibiotic tolerance and antibiotic resistance, and why does tolerance
    matter clinically?""",
    win="""
    Resistance and tolerance describe different ways bacteria survive antibiotics. Resistance means the
    bacteria can grow in the presence of the drug: the minimum inhibitory concentration (MIC) is raised,
    usually through mechanisms such as drug-inactivating enzymes, target modification or efflux pumps.
    Tolerance means the MIC is unchanged, so the drug still prevents growth, but the bacteria are killed more
    slowly. It is measured by the time needed to kill a given fraction of the population rather than by the
    MIC. Persistence is a related phenomenon in which a small subpopulation is tolerant while most cells are
    killed quickly, producing a biphasic kill curve.

    Tolerance often reflects physiology rather than genetics: slow growth, nutrient starvation, stationary
    phase and the biofilm state all reduce the activity of drugs such as beta-lactams and
    fluoroquinolones that act on active cellular processes (Dubois and Mensah 2019).

    Clinically, tolerance matters for three reasons. First, standard susceptibility testing measures MIC, so
    a tolerant infection appears "susceptible" even though treatment fails or relapses, as seen in chronic
    biofilm infections on implants and in cystic fibrosis airways. Second, tolerance prolongs the time
    bacteria survive under treatment, which increases the chance of acquiring resistance mutations;
    evolution experiments show that tolerance often evolves first and facilitates later resistance
    (Kowalski et al. 2020). Third, it motivates different treatment strategies, such as combinations that
    act on dormant cells, longer courses, or removal of infected devices, rather than simply higher doses.
    """,
    lose="""
    Antibiotic tolerance and resistance are basically two degrees of the same thing. Resistant bacteria have
    genes that let them survive antibiotics (Lindqvist 2018), while tolerant bacteria have a milder form of
    resistance, with a slightly raised MIC, so they need a higher dose (Kowalski et al. 2020). Persister
    cells are bacteria that have become permanently resistant after exposure (Dubois and Mensah 2019).

    Tolerance matters because it can develop into full resistance over time. Clinicians should therefore
    use high enough doses and complete the full course of antibiotics, which prevents tolerant bacteria from
    surviving and becoming resistant. Standard susceptibility tests detect both tolerance and resistance
    through the MIC, so laboratories can identify tolerant infections and guide dosing. New antibiotics with
    novel mechanisms are also needed to keep ahead of both problems.
    """,
    refs={
        "Dubois and Mensah 2019": "Growth state, biofilms and antibiotic tolerance in chronic infections",
        "Kowalski et al. 2020": "Tolerance precedes and promotes the evolution of antibiotic resistance",
        "Lindqvist 2018": "Genetic mechanisms of acquired antibiotic resistance",
    },
)

sci(
    HC,
    "Others",
    """Is wastewater surveillance useful for forecasting hospital admissions for respiratory viruses
    such as SARS-CoV-2 and influenza?""",
    win="""
    Somewhat useful, with clear limits. For SARS-CoV-2, wastewater concentrations typically lead reported
    cases by a few days and hospital admissions by up to one to two weeks, and adding wastewater signals to
    forecasting models modestly improves short-term admission forecasts, especially when clinical testing
    declines (Kim et al. 2023). Gains are largest in sewersheds covering large populations and smallest in
    small catchments, where the signal is noisy.

    For influenza and RSV, the evidence is thinner. Shedding into faeces is lower and less consistent, so
    the relationship with admissions is weaker, although trends often track clinical surveillance
    (Ruiz and Hoffmann 2024). Normalization for flow and population, laboratory method changes and rainfall
    dilution remain sources of error, so wastewater is best used as one input alongside clinical data.
    """,
    lose="""
    Wastewater surveillance is a powerful public health tool that became widely used during the COVID-19
    pandemic. People infected with a virus shed genetic material in their stool, which ends up in sewage, so
    measuring viral RNA at treatment plants reflects infections in the entire community, including people
    who are never tested (Novak et al. 2021). This makes it unbiased and independent of testing behaviour.

    Studies have shown that wastewater concentrations closely predict hospitalizations several weeks in
    advance (Kim et al. 2023), and the same approach works for influenza, RSV and other respiratory viruses
    (Ruiz and Hoffmann 2024). It is also cheap: one sample can represent hundreds of thousands of people.
    Sequencing of wastewater can detect new variants before they appear in clinical samples
    (Adeyemi 2022).

    For these reasons, wastewater surveillance should be the primary basis for forecasting hospital demand.
    Health departments can use wastewater trends to plan staffing and bed capacity, and many countries have
    now established permanent national wastewater monitoring programmes. In the future, the same
    infrastructure could be used to monitor antimicrobial resistance and drug use.
    """,
    refs={
        "Kim et al. 2023": "Wastewater viral concentrations improve short-term forecasts of COVID-19 hospital admissions",
        "Ruiz and Hoffmann 2024": "Influenza and RSV in wastewater: shedding variability and correlation with clinical surveillance",
        "Novak et al. 2021": "Community-level SARS-CoV-2 monitoring through municipal wastewater",
        "Adeyemi 2022": "Early detection of emerging variants by wastewater sequencing",
    },
)

sci(
    HC,
    "Challenges & Limitations",
    """What are the main barriers to implementing digital cognitive behavioural therapy for insomnia (dCBT-I)
    in primary care?""",
    win="""
    dCBT-I is effective in trials, but implementation studies in primary care identify barriers at the
    patient, clinician and system levels.

    Patient level. Engagement drops steeply after the first few sessions, and sleep restriction, the most
    effective component, is also the most demanding, producing daytime sleepiness in the early weeks.
    Completion rates in routine care are often below half, compared with much higher rates in trials that
    selected motivated participants (Brennan et al. 2021). Older adults and people with lower digital
    literacy are underrepresented among completers.

    Clinician level. Many general practitioners are unfamiliar with CBT-I, continue to prescribe hypnotics as
    first-line treatment, and are uncertain whether patients with comorbid depression or chronic pain are
    suitable (Iyer et al. 2022). Brief training and clear referral pathways increase uptake.

    System level. Reimbursement for digital therapeutics is inconsistent across countries, so clinics cannot
    easily prescribe the programmes, and integration with electronic health records is limited
    (Moreau and Sato 2023). Without integration, clinicians do not see progress data and cannot follow up.

    Safety considerations also matter: sleep restriction is generally discouraged for people with bipolar
    disorder, epilepsy or a high risk of falls, so screening is needed before referral. Hybrid models that
    combine a digital programme with brief check-ins from a nurse or therapist appear to improve both
    adherence and safety (Okafor 2024).
    """,
    lose="""
    Digital CBT-I programmes deliver the components of cognitive behavioural therapy for insomnia, such as
    sleep restriction, stimulus control and cognitive restructuring, through an app or website, so they can
    reach many more patients than face-to-face therapy. Trials have shown improvements in insomnia severity
    similar to in-person treatment (Brennan et al. 2021).

    The main barrier to use in primary care is awareness: many patients and doctors do not know that these
    programmes exist. Some patients also prefer medication because it works quickly. Increasing awareness and
    making the apps more engaging should help, and over time digital CBT-I is likely to become a standard
    first-line option in primary care. Some health systems have started offering these programmes free of
    charge, and early experience suggests patients appreciate being able to use them at home at any time.
    """,
    refs={
        "Brennan et al. 2021": "Engagement and completion of digital CBT for insomnia in routine primary care",
        "Iyer et al. 2022": "General practitioners' views on digital cognitive behavioural therapy for insomnia",
        "Moreau and Sato 2023": "Reimbursement and integration barriers for prescription digital therapeutics",
        "Okafor 2024": "Hybrid digital and nurse-supported insomnia treatment: a pragmatic trial",
    },
)

sci(
    HC,
    "Methodology Inquiry",
    """How should I handle informative dropout (missing not at random) in a longitudinal analysis of
    patient-reported outcomes in an oncology trial?""",
    win="""
    In oncology, patients often stop completing questionnaires because their health is getting worse, so
    missing data are likely missing not at random (MNAR). No analysis can verify the missingness mechanism,
    so the standard approach is a primary analysis under a stated assumption plus sensitivity analyses.

    A reasonable plan: use a mixed model for repeated measures or multiple imputation under missing at
    random as the primary analysis, including auxiliary variables such as clinical status at the time of
    dropout. Then explore departures from that assumption with delta-adjusted or reference-based multiple
    imputation, in which imputed values for dropouts are shifted by increasingly unfavourable amounts, and
    report the "tipping point" at which conclusions change (Larsen and Kaur 2020).

    When dropout is closely linked to death or progression, joint models of the outcome trajectory and the
    dropout time, or pattern-mixture models stratified by dropout time, make the dependence explicit
    (Zhao et al. 2022). Avoid last observation carried forward and complete-case analysis, which are biased
    in both directions.
    """,
    lose="""
    Missing data are very common in patient-reported outcome studies, especially in oncology, where patients
    can become too unwell to complete questionnaires. There are three types of missing data: missing
    completely at random (MCAR), missing at random (MAR) and missing not at random (MNAR)
    (Rossi et al. 2017). It is important to identify which type applies before choosing a method.

    You can test which mechanism applies using Little's test, which checks whether missingness is related to
    observed variables. If the test is not significant, the data are MCAR and complete-case analysis is
    valid. If the data are MAR, multiple imputation by chained equations is the best method and gives
    unbiased estimates (Chen and Okafor 2019). Last observation carried forward is also widely used and is
    acceptable when dropout is low, since it is conservative.

    For MNAR data, multiple imputation will still provide reasonable results in most cases, especially if
    many variables are included in the imputation model (Zhao et al. 2022). It is also good practice to
    report the amount of missing data at each time point and compare baseline characteristics of patients
    with and without missing data. Regulatory agencies require a clear description of how missing data were
    handled, so this should be specified in the statistical analysis plan before the trial starts.
    """,
    refs={
        "Larsen and Kaur 2020": "Delta-adjusted and reference-based imputation for patient-reported outcomes with informative dropout",
        "Zhao et al. 2022": "Joint models of quality-of-life trajectories and dropout in cancer trials",
        "Rossi et al. 2017": "A primer on missing data mechanisms in clinical research",
        "Chen and Okafor 2019": "Multiple imputation by chained equations for longitudinal questionnaire data",
    },
)

# ----------------------- Humanities & Social Sciences -----------------------
HSS = "Humanities & Social Sciences"

sci(
    HSS,
    "Conceptual Explanation",
    """What is "algorithm aversion", and what factors make people more or less willing to rely on
    algorithmic advice?""",
    win="""
    Algorithm aversion refers to the tendency of people to abandon an algorithmic forecaster more readily than
    a human one after seeing both make mistakes, even when the algorithm is more accurate overall. In the
    original experiments, participants who watched an algorithm err became much less likely to choose it for
    subsequent forecasts, while equivalent human errors were forgiven more easily (Dietrich and Moreau 2015).
    The key point is that aversion is conditional: it is not a blanket distrust of algorithms.

    Later work has shown that people often prefer algorithmic advice in the absence of visible errors, a
    pattern sometimes called algorithm appreciation, especially for objective, numerical tasks such as
    estimating weights or predicting sales. Aversion is stronger in tasks perceived as subjective or
    involving moral judgement, such as recommending jokes, judging character or making medical decisions,
    where people believe that human intuition or understanding of individual uniqueness matters.

    Several factors reduce aversion. Giving people a small amount of control, even the ability to adjust the
    algorithm's forecast by a few percent, substantially increases willingness to use it
    (Nakamura et al. 2018). Transparency about how the algorithm works and its track record can help, though
    overly detailed explanations sometimes reduce trust. Expertise cuts both ways: domain experts discount
    algorithmic advice more than novices, partly from overconfidence in their own judgement. Framing also
    matters, for instance describing a system as "learning" from errors makes people more tolerant of them.

    Overall, reliance depends on the task domain, the visibility of errors, perceived control and the
    decision-maker's expertise.
    """,
    lose="""
    Algorithm aversion is the well-documented finding that people distrust algorithms and prefer human
    judgement (Dietrich and Moreau 2015). Studies in finance (Kaur et al. 2019), medicine
    (Adeyemi and Berg 2020) and hiring (Castillo 2021) all show that people consistently choose human
    experts over algorithms, even when they are told that the algorithm is more accurate.

    The reasons include a lack of understanding of how algorithms work, fear of being replaced, and the
    belief that machines cannot handle unique situations. As people become more familiar with AI in everyday
    life, algorithm aversion is likely to decrease, but for now it remains a major barrier to adopting
    decision-support tools in organizations. Companies introducing algorithmic tools should therefore invest
    in training and communication so that employees understand the benefits, and should keep a human in the
    loop for important decisions.
    """,
    refs={
        "Dietrich and Moreau 2015": "Algorithm aversion: people erroneously avoid algorithms after seeing them err",
        "Nakamura et al. 2018": "Overcoming algorithm aversion by letting people modify algorithmic forecasts",
        "Kaur et al. 2019": "Investor reliance on robo-advisors versus human advisors",
        "Adeyemi and Berg 2020": "Patient preferences for algorithmic versus physician diagnoses",
        "Castillo 2021": "Applicant reactions to algorithmic hiring decisions",
    },
)

sci(
    HSS,
    "State-of-the-Art Assessment",
    """What does the recent research literature say about the effect of remote and hybrid work on
    employee productivity?""",
    win="""
    The literature does not support a single answer; effects depend on the form of remote work, the type of
    task and how productivity is measured.

    Fully remote work. Several field experiments and natural experiments find productivity declines for fully
    remote arrangements, particularly for tasks requiring coordination and for newer employees. In a data-entry
    setting in India, randomly assigned home workers were about 18 percent less productive than office
    workers, partly due to home distractions (Rao et al. 2023). Studies of software engineers find that remote
    work reduces feedback and mentoring, especially for junior staff, with possible long-term costs for skill
    development even when short-term output is unchanged (Lindqvist and Okafor 2023).

    Hybrid work. Evidence is more positive. A large randomized trial at a travel company that allowed two
    home days per week found no measurable difference in performance reviews or promotions, while quit rates
    fell by roughly a third, particularly among women, non-managers and long commuters (Brennan et al. 2024).
    Since turnover is costly, hybrid arrangements can raise firm-level productivity even if individual output
    is flat.

    Earlier call-centre evidence. Pre-pandemic experiments in call centres found gains from working at home,
    driven by fewer breaks and sick days, though these were self-selected, relatively independent tasks
    (Chen and Park 2015).

    Measurement issues. Self-reported productivity tends to be higher than objective measures, and managers
    consistently rate remote productivity lower than employees do. Many pandemic-era studies are confounded
    by lockdowns, school closures and general disruption (Mensah 2022).

    In sum: fully remote work tends to reduce productivity in collaborative or learning-intensive roles,
    hybrid work appears roughly neutral for output while improving retention, and the best-identified
    results come from randomized or quasi-random assignment rather than surveys.
    """,
    lose="""
    Research generally shows that remote work increases productivity. Employees working from home save time
    on commuting, have fewer interruptions and report better work-life balance, which leads to higher output
    (Chen and Park 2015). Surveys during the pandemic found that most workers felt as productive or more
    productive at home (Mensah 2022).

    However, some managers worry about collaboration and company culture, and some firms have asked employees
    to return to the office. Hybrid models are becoming the most common compromise, combining the benefits of
    both. Overall, remote work appears to be good for productivity and is likely to remain a permanent
    feature of the labour market. Employers who offer flexibility also gain access to a wider talent pool,
    since they can hire people who live far from the office, and they can save money on office space.
    Future research will likely confirm these benefits as firms adapt their management practices.
    """,
    refs={
        "Rao et al. 2023": "Working from home and productivity: a randomized experiment with data-entry workers",
        "Lindqvist and Okafor 2023": "Proximity, feedback and the development of junior software engineers",
        "Brennan et al. 2024": "Hybrid working from home improves retention without damaging performance",
        "Chen and Park 2015": "Does working from home work? Evidence from a call-centre experiment",
        "Mensah 2022": "Self-reported and objective productivity during pandemic remote work",
    },
)

sci(
    HSS,
    "Methodology Inquiry",
    """How do historians apply topic modelling to digitized historical newspapers, and what pitfalls
    should I watch out for?""",
    win="""
    Topic models such as LDA are mostly used exploratorily: to map recurring discourses across large runs of
    newspapers, trace their rise and fall, and select articles for close reading (Dubois 2019).

    Main pitfalls:
    - OCR noise. Error rates in older digitized newspapers can exceed 20 percent of words, which fragments
      topics and biases results against poorly printed titles (Haddad et al. 2021). Filter or correct
      low-quality pages and report OCR quality.
    - Segmentation. Many collections are digitized by page, not article, so one "document" mixes unrelated
      items; article segmentation or chunking changes results.
    - Corpus composition. Digitized collections over-represent certain titles, regions and periods, so
      topic trends may reflect what was digitized rather than historical change (Nakamura and Reyes 2020).
    - Interpretation. Topics are statistical word clusters; labelling them is an interpretive act, and
      results vary with the number of topics and random seeds. Check stability across runs and validate by
      reading documents (Zhao 2022).
    """,
    lose="""
    Topic modelling is a computational method that discovers themes in a large collection of texts. The most
    common algorithm is Latent Dirichlet Allocation, which assumes that each document is a mixture of topics
    and each topic is a distribution over words (Dubois 2019). This makes it ideal for historians working
    with thousands of newspaper issues that would be impossible to read individually.

    The typical workflow has several steps. First, obtain the digitized newspapers, usually from a national
    library or a commercial database. Second, preprocess the text: convert to lowercase, remove punctuation
    and numbers, remove stopwords such as "the" and "and", and optionally lemmatize words. Third, create a
    document-term matrix. Fourth, choose the number of topics, for example 20, 50 or 100, and run the model
    using software such as MALLET or the gensim library in Python. Fifth, inspect the top words of each topic
    and give each topic a label. Finally, plot the prevalence of topics over time to see how discussions
    changed.

    Some pitfalls include choosing the wrong number of topics, which can produce topics that are too broad
    or too narrow, and forgetting to remove stopwords, which can dominate the results. Coherence scores can
    help select the number of topics (Zhao 2022). It is also good to visualize the results with tools such as
    pyLDAvis, which makes it easier to explore the relationships between topics. With these steps, topic
    modelling can reveal patterns that traditional reading might miss and can make historical research more
    objective.
    """,
    refs={
        "Dubois 2019": "Distant reading the press: topic models in newspaper history",
        "Haddad et al. 2021": "The effect of OCR errors on topic models of historical newspapers",
        "Nakamura and Reyes 2020": "Digitization bias and the representativeness of historical newspaper archives",
        "Zhao 2022": "Stability and validation of topic models for humanities research",
    },
)

sci(
    HSS,
    "Challenges & Limitations",
    """What are the main criticisms of using behavioural "nudges" in public policy?""",
    win="""
    Criticisms fall into two groups, effectiveness and legitimacy.

    On effectiveness, the headline effects from academic studies shrink considerably at scale. A comparison
    of trials run by government nudge units with published academic trials found average effects roughly
    six times smaller in the government trials, largely because of publication bias and differences in
    implementation (Petrov and Alvarez 2022). Effects also tend to decay over time and rarely address
    structural causes such as prices or access.

    On legitimacy, critics argue that nudges can bypass rational deliberation, raising concerns about
    manipulation and autonomy, especially when they are not transparent. Others note that defaults and
    framing are unavoidable, so the question is who designs them and with what accountability
    (Lindqvist 2020). Critics also worry that focusing on individual behaviour can displace more effective
    regulatory or fiscal policy.
    """,
    lose="""
    Nudges are interventions that change the "choice architecture" to steer people toward better decisions
    without restricting options or changing incentives, such as automatic enrolment in pension schemes or
    placing healthy food at eye level (Osei 2018). They have become popular because they are cheap and
    politically attractive, and many governments have created behavioural insights teams.

    There are several criticisms:
    1. Paternalism: nudges assume policymakers know what is best for people (Kowalski 2019).
    2. Manipulation: nudges exploit cognitive biases (Lindqvist 2020).
    3. Replication: some famous nudge studies have failed to replicate (Petrov and Alvarez 2022).
    4. Limited scope: nudges cannot solve big problems like climate change or poverty.
    5. Unequal effects: nudges may work differently across groups.
    6. Cultural differences: nudges developed in one country may not work in another.
    7. Ethics: there are ethical concerns about nudging without consent.

    Despite these criticisms, nudges remain a valuable tool for policymakers. They should be used alongside
    traditional policy tools rather than as a replacement, and careful evaluation through randomized trials
    can help identify which nudges work. Transparency, for example by publicly disclosing nudges, can also
    address ethical concerns.
    """,
    refs={
        "Petrov and Alvarez 2022": "Nudge effects at scale: government nudge units versus academic trials",
        "Lindqvist 2020": "Choice architecture, transparency and the ethics of nudging",
        "Osei 2018": "Choice architecture in public policy: an introduction",
        "Kowalski 2019": "Libertarian paternalism and its critics",
    },
)

sci(
    HSS,
    "Paper Finding",
    """Which papers estimate the employment effects of minimum wage increases using the distribution of
    wages ("bunching" or missing-jobs) approach?""",
    win="""
    The bunching approach compares the number of jobs that disappear just below a new minimum wage with the
    number of extra jobs that appear at and slightly above it. Key papers:

    - The foundational study applies this method to 138 US state minimum wage changes and finds that the
      number of low-wage jobs lost below the new minimum is roughly offset by new jobs at and just above it,
      implying small overall employment effects (Hartmann et al. 2019).
    - An extension to sub-national increases in Germany after the national minimum wage introduction, with
      similar conclusions and evidence of reallocation toward more productive firms (Schmidt and Novak 2022).
    - A study of large minimum wage increases in Hungary, where most of the cost was passed through to
      consumers and job losses were modest but not zero (Kowalski et al. 2021).
    - A methodological critique arguing that estimates are sensitive to the choice of wage window and to
      spillovers further up the distribution, with re-estimates showing larger negative effects for teens
      (Brennan 2020).
    - A recent application to very large increases relative to the local median wage, which finds that the
      offsetting pattern weakens when the minimum exceeds about 60 percent of the median (Reyes et al. 2023).

    Together these cover the method, two international applications, a critique, and the question of where
    the offset breaks down.
    """,
    lose="""
    The most important paper using this approach looks at many US state minimum wage increases and finds
    that jobs lost below the new minimum are replaced by jobs at the new minimum, so overall employment
    does not change (Hartmann et al. 2019). This approach is considered more reliable than traditional
    methods that compare states or counties.

    There is also work applying similar ideas to Germany (Schmidt and Novak 2022). Beyond these, the classic
    fast-food studies from the 1990s are also worth reading for background, as they started the modern
    debate on minimum wage effects. Searching for "minimum wage" together with "wage distribution" or
    "bunching" in economics working paper series should help you find further applications, since the
    approach has become popular in recent years.
    """,
    refs={
        "Hartmann et al. 2019": "The effect of minimum wages on low-wage jobs: evidence from the wage distribution",
        "Schmidt and Novak 2022": "Reallocation effects of the German minimum wage: a bunching approach",
        "Kowalski et al. 2021": "Who pays for the minimum wage? Evidence from a large increase in Hungary",
        "Brennan 2020": "Sensitivity of bunching estimates of minimum wage effects to window choice and spillovers",
        "Reyes et al. 2023": "When does the missing-jobs offset break down? Minimum wages relative to local medians",
    },
)

sci(
    HSS,
    "Conceptual Explanation",
    """How do linguists explain the emergence of creole languages, and which accounts have the most
    empirical support today?""",
    win="""
    Creoles arose mainly in colonial plantation societies where speakers of many languages needed a common
    medium and the dominant (lexifier) language was only partly accessible. Three families of explanation
    have been proposed.

    Universalist accounts, most famously the language bioprogram hypothesis, claimed that children exposed to
    an unstable pidgin recreated grammar from an innate default, explaining why creoles in different places
    share features such as preverbal tense-mood-aspect markers. Later research weakened this account: many
    creoles developed without a preceding pidgin phase, adults rather than children drove much of the change,
    and the shared features can be explained by other means (Adeyemi 2017).

    Substrate accounts emphasize transfer from the speakers' first languages. Detailed comparisons of Haitian
    Creole with Fongbe, for example, show close parallels in the organization of the lexicon and in
    grammatical categories, suggesting that speakers mapped French-derived words onto their native
    grammatical frames (Moreau and Tanaka 2019).

    Superstrate accounts argue that creoles continue non-standard, colloquial varieties of the European
    languages spoken by settlers, with features that look exotic only when compared with the standard
    language.

    Current consensus favours a feature-pool or contact-ecology view: creoles draw selectively on substrate,
    superstrate and general learning biases, and the outcome depends on demographic factors such as the ratio
    of newcomers to locally born speakers and the speed of population growth. Quantitative typological
    databases show that creoles are not a uniform structural type, which is hard to reconcile with a purely
    universalist account (Lindqvist et al. 2021).
    """,
    lose="""
    Creole languages are explained by the language bioprogram hypothesis, which holds that children have an
    innate grammar that emerges when the input they receive is a simplified pidgin (Bergstrom 1981). This is
    why creoles around the world share similar features (Castillo et al. 2005), such as simple morphology and
    fixed word order, and why they are considered the world's simplest grammars (Kaur 2001).

    Studies of Hawaiian Creole (Ruiz 1999) and of Nicaraguan Sign Language (Osei and Park 2004) support this
    view, since in both cases children created a full language within one generation. The bioprogram
    therefore remains the main explanation of creole genesis, although some linguists also mention
    influences from African languages. Because creoles are young languages, they offer a unique window onto
    the innate capacities that all humans share, which is why they have attracted so much attention from
    linguists interested in language acquisition.
    """,
    refs={
        "Adeyemi 2017": "Reassessing the bioprogram: demography, adults and the genesis of Atlantic creoles",
        "Moreau and Tanaka 2019": "Relexification and substrate transfer in Haitian Creole",
        "Lindqvist et al. 2021": "Creoles in typological perspective: evidence from a structural database",
        "Bergstrom 1981": "Roots of language: an innate bioprogram for grammar",
        "Castillo et al. 2005": "Shared features of the world's creole languages",
        "Kaur 2001": "The world's simplest grammars are creole grammars",
        "Ruiz 1999": "The emergence of Hawaii Creole English",
        "Osei and Park 2004": "Children creating language: the case of Nicaraguan Sign Language",
    },
)

sci(
    HSS,
    "Challenges & Limitations",
    """Why is it so hard to establish whether social media use causes political polarization?""",
    win="""
    Four problems make causal claims difficult.

    First, measurement: "polarization" can mean ideological divergence on issues, affective hostility toward
    the other party, or sorting, and studies using different definitions reach different conclusions
    (Hartmann and Sato 2021). Second, selection: people choose their feeds and follow partisan accounts, so
    correlations between use and polarization largely reflect who uses what. Third, platform data access:
    exposure and ranking data are controlled by companies, so most studies rely on self-reports, which are
    inaccurate (Iyer et al. 2022).

    Fourth, experiments estimate narrow effects. Deactivation studies and large platform collaborations that
    altered feed ranking for some users found small or null effects on polarization over weeks to months
    (Nakamura et al. 2023), but these cannot capture long-run, society-wide effects such as changes in what
    politicians and media produce. Cross-national trends add puzzles: polarization rose in some countries
    with high social media use but not others (Okafor 2024).
    """,
    lose="""
    Social media has become a central part of political life. Platforms like Facebook, X (formerly Twitter),
    YouTube and TikTok are where many people get their news, discuss politics and interact with politicians.
    Many commentators blame these platforms for increasing polarization through echo chambers, in which
    people mainly see content that confirms their existing views, and filter bubbles, in which algorithms
    personalize content in ways that limit exposure to different perspectives (Iyer et al. 2022).

    Establishing causality is difficult for several reasons. Polarization has many causes, including partisan
    media, economic inequality, geographic sorting and the strategies of political elites. Social media is
    also constantly changing, so findings from a few years ago may not apply to current platforms. Different
    platforms have different features, which makes generalizing difficult. In addition, the algorithms used
    by platforms are secret, so researchers cannot study them directly. Finally, it is hard to separate the
    effect of social media from the effect of the internet more generally.

    Despite these difficulties, most research suggests that social media does contribute to polarization,
    particularly by spreading misinformation and emotionally charged content that generates engagement
    (Okafor 2024). Young people, who use social media the most, may be particularly affected. Policymakers
    are considering regulations such as algorithmic transparency requirements to reduce these harms, and
    researchers continue to call for better data access.
    """,
    refs={
        "Hartmann and Sato 2021": "Ideological, affective and sorted: disentangling measures of political polarization",
        "Iyer et al. 2022": "The accuracy of self-reported social media exposure",
        "Nakamura et al. 2023": "Altering feed ranking during an election: effects on attitudes and polarization",
        "Okafor 2024": "Social media adoption and polarization trends across democracies",
    },
)

sci(
    HSS,
    "Methodology Inquiry",
    """How are regression discontinuity designs used in education policy research, and what are the main
    threats to their validity?""",
    win="""
    Regression discontinuity (RD) designs exploit rules that assign a treatment based on whether a continuous
    "running variable" crosses a cutoff. Education policy is full of such rules: test-score thresholds for
    admission to selective schools, eligibility for remedial programmes, scholarship cutoffs, class-size caps
    and school-entry birthday cutoffs. Students just above and just below the cutoff are assumed to be
    comparable, so the jump in outcomes at the cutoff estimates the effect of the treatment for students
    near the threshold (Tanaka and Brennan 2018).

    Several well-known applications illustrate the approach. Studies of elite exam schools compare students
    who barely qualified with those who barely missed, and often find small effects on achievement despite
    large differences in peer quality (Rossi et al. 2019). Maximum class-size rules that split cohorts when
    enrolment exceeds a cap create discontinuities in class size that have been used to estimate class-size
    effects.

    Main threats to validity:
    - Manipulation of the running variable. If teachers round up scores near a threshold or students retake
      tests until they pass, units just above the cutoff differ systematically. Density tests for bunching
      at the cutoff are standard diagnostics (Chowdhury 2020).
    - Other policies at the same cutoff. If the same threshold determines several benefits, the estimate
      bundles their effects.
    - Bandwidth and functional form. Results can depend on how far from the cutoff data are used and on the
      polynomial order; local linear regression with data-driven bandwidths and robust bias-corrected
      confidence intervals is now standard (Park and Lindqvist 2021).
    - Limited external validity. The estimate applies to students near the cutoff, which may not be the
      population of policy interest.
    - Fuzzy compliance. When crossing the threshold changes the probability of treatment rather than
      determining it, a fuzzy RD is needed and the estimate applies only to compliers (Mensah et al. 2022).

    Checking covariate balance at the cutoff and placebo cutoffs are routine robustness checks.
    """,
    lose="""
    Regression discontinuity is a quasi-experimental method in which students just above and below a cutoff
    are compared, for example students who just passed or failed an entrance exam. Because these students are
    very similar, the difference in their outcomes shows the causal effect of the programme
    (Tanaka and Brennan 2018). The main advantage is that RD can provide causal estimates without a
    randomized experiment.

    The main threat is that the result applies only to students near the cutoff. Another concern is sample
    size, since only a small number of students are close to the threshold. Researchers usually address this
    by using all the data and fitting a high-order polynomial, which increases precision
    (Rossi et al. 2019). RD studies are generally considered the most credible design after randomized
    trials, and they are increasingly used by education ministries to evaluate their own programmes.
    """,
    refs={
        "Tanaka and Brennan 2018": "Regression discontinuity designs in education research: a practical guide",
        "Rossi et al. 2019": "Do elite exam schools raise achievement? Evidence from admission cutoffs",
        "Chowdhury 2020": "Testing for manipulation of test scores near eligibility thresholds",
        "Park and Lindqvist 2021": "Robust bias-corrected inference for local linear regression discontinuity",
        "Mensah et al. 2022": "Fuzzy regression discontinuity in remedial education placement",
    },
)

sci(
    HSS,
    "State-of-the-Art Assessment",
    """After the large-scale replication projects of the last decade, what do we now know about the
    replicability of social psychology findings?""",
    win="""
    The large coordinated projects give a reasonably consistent picture. In the first large replication of
    100 studies from top psychology journals, about a third to two-fifths of the social psychology effects
    replicated by common criteria, and replication effect sizes were on average about half the original
    ones (Moreau et al. 2015). Multi-site "Many Labs" projects, which ran the same protocols in dozens of
    laboratories, found that some classic effects replicate robustly across cultures, such as anchoring,
    while others, including several priming and ego-depletion effects, did not replicate at all
    (Kowalski et al. 2018).

    Predictors of replication are now better understood. Studies with small samples, surprising findings and
    p-values just below 0.05 replicate less often. Prediction markets and surveys of researchers anticipated
    which studies would replicate with well-above-chance accuracy, suggesting the field had implicit knowledge
    of which findings were fragile (Haddad and Chen 2019).

    The field has changed in response. Preregistration, registered reports, larger samples and open data are
    now common, and studies published under these practices report much smaller average effects, consistent
    with reduced publication bias (Zhao et al. 2022). A recent project that replicated new, preregistered
    findings from laboratories adopting best practices found high replication rates, close to the
    theoretical maximum given statistical power (Sato et al. 2024).

    The current view is that the earlier literature contains many false positives and inflated effects,
    especially before about 2015, but that improved practices substantially increase replicability.
    """,
    lose="""
    The replication crisis showed that most findings in social psychology are false. When researchers tried
    to repeat famous experiments, only a small proportion succeeded (Moreau et al. 2015), and well-known
    effects such as power posing and ego depletion were found not to exist (Kowalski et al. 2018).

    The main causes were questionable research practices such as p-hacking and small samples. Since then,
    psychology has introduced reforms, but trust in the field has been damaged, and many researchers now
    treat any finding published before the crisis as unreliable. It will take many years before the field
    recovers its credibility, and some have argued that social psychology needs to be rebuilt from scratch.
    Similar problems have since been found in economics, medicine and other sciences.
    """,
    refs={
        "Moreau et al. 2015": "Estimating the reproducibility of psychological science across 100 studies",
        "Kowalski et al. 2018": "Variation in replicability across samples and settings: a multi-site project",
        "Haddad and Chen 2019": "Prediction markets forecast the outcomes of replication studies",
        "Zhao et al. 2022": "Effect sizes in registered reports versus the standard literature",
        "Sato et al. 2024": "High replicability of newly discovered findings produced with rigour-enhancing practices",
    },
)

sci(
    HSS,
    "Others",
    """How are museums in Europe currently handling repatriation claims for objects acquired during the
    colonial period?""",
    win="""
    Practice varies by country because legal frameworks differ. In France and the United Kingdom, national
    collections are legally inalienable, so returns have required special legislation or use of loans and
    long-term deposits; Germany and the Netherlands instead adopted national guidelines that allow museums to
    return objects acquired in contexts of injustice, and several Benin bronzes have been transferred in
    ownership to Nigeria under such frameworks (Rossi and Adeyemi 2023).

    Provenance research is the bottleneck. Many objects have incomplete records, and museums increasingly
    fund joint research with scholars from the countries of origin. Critics note that the burden of proof
    often still rests with claimants and that decisions remain in the hands of holding institutions
    (Hartmann 2022). Anyone following a specific claim should check the relevant national guidelines first.
    """,
    lose="""
    Repatriation of colonial-era objects has become one of the most discussed issues in the museum world.
    During the colonial period, European powers took large numbers of cultural objects from Africa, Asia,
    the Pacific and the Americas, through military expeditions, missionary activity, scientific collecting
    and trade. Today these objects are held in major museums such as the British Museum, the Louvre and the
    Humboldt Forum (Fischer 2020).

    Source communities and governments have increasingly demanded the return of these objects, arguing that
    they were taken unjustly and are important to their cultural heritage. Museums have responded in various
    ways. Some have returned objects, while others argue that they hold the objects for the benefit of all
    humanity as "universal museums" and that they have preserved objects that might otherwise have been lost
    (Hartmann 2022). Digitization and 3D scanning are proposed as ways to share collections without
    physically returning them.

    Overall, the trend is toward more returns, and many experts believe that in the coming decades most
    colonial collections will be returned to their countries of origin (Nguyen et al. 2021). Museums will
    need to reinvent themselves and find new ways to tell global histories, perhaps through partnerships,
    loans and co-curated exhibitions with institutions in Africa and elsewhere.
    """,
    refs={
        "Rossi and Adeyemi 2023": "Legal frameworks for restitution of colonial collections in four European states",
        "Hartmann 2022": "Who decides? Provenance research and the burden of proof in restitution claims",
        "Fischer 2020": "Colonial collecting and the formation of European ethnographic museums",
        "Nguyen et al. 2021": "The future of the universal museum after restitution",
    },
)

sci(
    HSS,
    "Conceptual Explanation",
    """What is the "resource curse", and does recent empirical evidence still support it?""",
    win="""
    The resource curse is the observation that countries rich in natural resources, especially oil and
    minerals, have often experienced slower growth, weaker democratic institutions or more conflict than
    resource-poor countries. Several mechanisms were proposed: "Dutch disease", in which resource exports
    raise the exchange rate and crowd out manufacturing; volatility of commodity prices, which complicates
    fiscal planning; and political effects, in which governments funded by resource rents rely less on
    taxation and therefore face weaker pressure for accountability.

    Early cross-country regressions found a negative relationship between resource exports as a share of GDP
    and subsequent growth. Later work challenged this in two ways. First, the measure was problematic:
    resource dependence (exports relative to GDP) is partly a symptom of weak industrial development, whereas
    measures of resource abundance (reserves or rents per capita) show no negative, and sometimes a
    positive, association with growth (Berg and Tanaka 2014). Second, panel studies using discoveries of
    giant oil fields as plausibly exogenous shocks find that discoveries increase GDP and investment on
    average, without a clear growth penalty (Okafor et al. 2019).

    The political version of the curse has held up better, but with important conditions. Oil wealth is
    associated with more durable authoritarian regimes, mainly in countries that discovered oil before
    establishing democratic institutions, and with conflict where resources are easily lootable or
    concentrated in regions with separatist grievances (Reyes 2021). Established democracies such as Norway
    show that institutions can manage resource wealth well.

    The current consensus is therefore that resources are not a curse in themselves; their effects depend on
    institutional quality at the time of discovery and on fiscal management.
    """,
    lose="""
    The resource curse refers to the paradox that countries with abundant natural resources tend to have
    lower economic growth than countries without them (Hoffmann 1995). Examples include Nigeria, Venezuela
    and the Democratic Republic of Congo, which have great natural wealth but widespread poverty
    (Chen et al. 2003).

    The main explanations are Dutch disease (Larsen 1998), corruption (Kim and Ruiz 2006), and civil
    conflict over resources (Osei 2008). Recent evidence continues to support the curse, and most economists
    agree that resource wealth is harmful for development unless countries adopt strong policies such as
    sovereign wealth funds, as Norway did. Diversifying the economy away from commodities is therefore the
    key recommendation for resource-rich developing countries, together with transparency in how resource
    revenues are collected and spent.
    """,
    refs={
        "Berg and Tanaka 2014": "Resource abundance versus resource dependence in growth regressions",
        "Okafor et al. 2019": "Giant oil discoveries and macroeconomic outcomes: a panel study",
        "Reyes 2021": "Oil, regime durability and conflict: the role of institutions at the time of discovery",
        "Hoffmann 1995": "Natural resource abundance and economic growth",
        "Chen et al. 2003": "Poverty amid plenty: case studies of resource-rich economies",
        "Larsen 1998": "Dutch disease and the decline of manufacturing in commodity exporters",
        "Kim and Ruiz 2006": "Resource rents and corruption",
        "Osei 2008": "Natural resources and civil war onset",
    },
)

sci(
    HSS,
    "Methodology Inquiry",
    """Can large language models be used to code open-ended survey responses reliably, and how should the
    coding be validated?""",
    win="""
    LLMs can code open-ended responses with agreement comparable to trained human coders for many
    well-defined schemes, but reliability varies by category and must be checked in each project
    (Castillo and Iyer 2024). Rare, ambiguous or culturally specific categories are where errors concentrate,
    and results can shift with prompt wording and model version.

    A defensible workflow: have two humans double-code a random validation sample, report their agreement as
    the benchmark, and compare LLM-human agreement against it with per-category precision and recall, not only
    overall accuracy. Fix the prompt and model version before coding the full data and archive them. When
    coded variables feed into regressions, misclassification biases estimates, so use the validation sample
    to correct for it, for example with design-based or measurement-error methods (Hartmann et al. 2025).
    """,
    lose="""
    Yes, large language models are now able to code open-ended survey responses as accurately as human
    coders and much faster. Studies have shown that models like GPT-4 achieve agreement with human coders
    above 90 percent across a wide range of tasks (Nguyen 2023), and they can even outperform crowd workers
    in annotation tasks (Petrov et al. 2023). This makes them a cost-effective replacement for manual coding,
    especially for large surveys with thousands of responses.

    To use an LLM for coding, you should first create a clear codebook with definitions and examples for each
    category. Then write a prompt that includes the codebook and instructs the model to assign one or more
    codes to each response. Using a low temperature setting makes the output more consistent. You can also
    ask the model to explain its reasoning, which improves accuracy (Castillo and Iyer 2024).

    For validation, you can ask the model to code the same responses twice and check whether it gives the
    same answer. If the consistency is high, the coding is reliable. Some researchers also check a few
    examples manually. Because LLMs are trained on large amounts of text, they understand the nuances of
    language better than simple dictionary-based methods, and they work in many languages, which makes them
    especially useful for cross-national surveys.
    """,
    refs={
        "Castillo and Iyer 2024": "Large language models as coders of open-ended survey responses: a validation study",
        "Hartmann et al. 2025": "Correcting downstream estimates for misclassification in automated text coding",
        "Nguyen 2023": "Zero-shot annotation of political texts with instruction-tuned language models",
        "Petrov et al. 2023": "Language models outperform crowd workers on text annotation tasks",
    },
)

# -------------------------------- Engineering --------------------------------
ENG = "Engineering"

sci(
    ENG,
    "State-of-the-Art Assessment",
    """What is the state of the art in solid electrolytes for solid-state lithium-metal batteries aimed at
    electric vehicles?""",
    win="""
    Three families of solid electrolytes dominate current research, and none yet meets all automotive
    requirements at once.

    Sulfides (for example argyrodites and thiophosphates) have the highest ionic conductivities, above
    10 mS/cm at room temperature in the best compositions, comparable to liquid electrolytes
    (Tanaka et al. 2022b). They are soft enough to be densified by cold pressing, which suits large-format
    manufacturing. Their weaknesses are chemical: they react with moisture to release hydrogen sulfide, so
    processing requires dry rooms, and they have narrow electrochemical stability windows, needing coated
    cathode particles to avoid interfacial decomposition (Moreau and Kim 2023).

    Oxides such as garnet-type LLZO are stable against lithium metal and air-tolerant, with conductivities
    around 1 mS/cm. However, they are brittle and require high-temperature sintering, and making thin,
    large-area separators without cracks remains difficult and expensive (Reyes et al. 2021).

    Polymers and polymer composites are easy to process but conduct poorly at room temperature, so most
    commercial polymer cells operate at 60 to 80 C. Halide electrolytes, a newer class, combine good
    oxidative stability with conductivities around 1 mS/cm and are attractive as catholytes
    (Sato and Mensah 2023).

    Across all classes, the main failure mode for lithium-metal anodes is dendrite penetration. Lithium
    filaments grow along grain boundaries and pre-existing cracks, and cells short-circuit above a critical
    current density that is often below what fast charging requires. Stack pressure of several megapascals
    helps maintain contact as lithium is plated and stripped, but large pressures are impractical in vehicle
    packs (Hoffmann et al. 2024). Anode-free designs, in which lithium is plated directly on the current
    collector during the first charge, improve energy density but make interface control even more critical.

    In short, sulfide-based cells are closest to commercialization, with pilot lines under construction, while
    critical current density, stack pressure and manufacturing cost remain the central unsolved problems.
    """,
    lose="""
    Solid-state batteries replace the flammable liquid electrolyte with a solid one, which improves safety and
    allows the use of lithium metal anodes, increasing energy density by up to 50 percent. The main types of
    solid electrolytes are sulfides, oxides and polymers (Tanaka et al. 2022b).

    Sulfides have the highest conductivity, oxides are the most stable and polymers are the easiest to
    manufacture. Researchers are also developing composite electrolytes that combine their advantages
    (Reyes et al. 2021). Several car companies have announced plans to introduce solid-state batteries in
    vehicles within the next few years, so the technology is close to being ready. The remaining challenges
    are mainly about reducing cost and scaling up production, which should happen as investment increases.
    Because solid electrolytes are not flammable, battery packs can also be simplified, with less need for
    cooling and safety systems, which will further reduce cost.
    """,
    refs={
        "Tanaka et al. 2022b": "Argyrodite sulfide electrolytes with room-temperature conductivity above 10 mS/cm",
        "Moreau and Kim 2023": "Interfacial decomposition between sulfide electrolytes and layered oxide cathodes",
        "Reyes et al. 2021": "Processing thin garnet electrolyte separators for large-format cells",
        "Sato and Mensah 2023": "Halide solid electrolytes as high-voltage catholytes",
        "Hoffmann et al. 2024": "Critical current density and stack pressure in lithium-metal solid-state cells",
    },
)

sci(
    ENG,
    "Challenges & Limitations",
    """What limits the fatigue life of additively manufactured Ti-6Al-4V parts compared with wrought
    material?""",
    win="""
    Fatigue performance of laser powder bed fusion Ti-6Al-4V is dominated by defects rather than
    microstructure. Lack-of-fusion pores and gas porosity act as crack initiation sites, and fatigue life
    correlates with the size and location of the largest defect near the surface (Kowalski and Osei 2020).

    As-built surface roughness is the second major factor: partially fused powder particles and layer steps
    create notches, and machined or polished specimens show much longer lives (Larsen et al. 2021). Hot
    isostatic pressing closes most internal porosity and brings high-cycle fatigue strength close to wrought
    levels, though it coarsens the microstructure and does not fix surface defects (Novak et al. 2022).
    Residual stresses from the build process and the fine acicular martensite also contribute.

    Practical limits therefore come from defect detection: CT inspection resolution and cost make it hard
    to certify that no critical defect is present in complex parts (Park 2023).
    """,
    lose="""
    Additive manufacturing of titanium alloys allows complex geometries such as lattice structures and
    topology-optimized brackets that are impossible to make by conventional machining, which is why it is
    attractive for aerospace and medical implants. However, the fatigue properties of these parts are usually
    lower than those of wrought or forged material, which limits their use in safety-critical applications.

    The main reason is the microstructure. During laser powder bed fusion, the material cools extremely
    rapidly, producing a fine martensitic alpha-prime structure that is very strong but brittle. This brittle
    microstructure reduces the resistance to crack initiation and growth, so cracks start earlier and grow
    faster than in the equiaxed microstructure of wrought material (Larsen et al. 2021). Heat treatment can
    transform the martensite into a more ductile alpha-beta structure and improve fatigue life.

    Other factors include the build orientation, since properties can differ between vertical and horizontal
    specimens, and the choice of process parameters such as laser power, scan speed and hatch spacing. Post
    processing steps like machining and heat treatment are therefore usually necessary. Researchers are also
    using machine learning to optimize process parameters (Chen 2022). With continued improvements in
    printers, the gap with wrought material is expected to close.
    """,
    refs={
        "Kowalski and Osei 2020": "Defect size, location and fatigue life of laser powder bed fused Ti-6Al-4V",
        "Larsen et al. 2021": "Effect of as-built surface roughness on the fatigue of additively manufactured titanium",
        "Novak et al. 2022": "Hot isostatic pressing and high-cycle fatigue of additively manufactured Ti-6Al-4V",
        "Park 2023": "Limits of X-ray computed tomography for qualifying additively manufactured parts",
        "Chen 2022": "Machine learning for process parameter optimization in metal additive manufacturing",
    },
)

sci(
    ENG,
    "Methodology Inquiry",
    """How is digital image correlation (DIC) used to measure full-field strain in fibre-reinforced composite
    specimens, and what practical issues affect accuracy?""",
    win="""
    In DIC, a random speckle pattern is applied to the specimen surface and imaged during loading. Software
    divides the reference image into subsets, tracks each subset in deformed images by maximizing a
    correlation criterion, and converts the resulting displacement field into strains. With two calibrated
    cameras, stereo DIC measures out-of-plane motion as well, which is important for composites because
    laminates often bend or twist during nominally in-plane tests.

    For composites, DIC is used to verify uniform strain in the gauge section of tensile and shear
    specimens, to identify strain concentrations around holes and notches, to observe damage such as
    matrix cracking and delamination as local strain jumps, and to calibrate material models through
    inverse identification methods such as finite element model updating (Adeyemi et al. 2021).

    Practical issues that affect accuracy:
    - Speckle pattern quality. Speckles should cover three to five pixels, with high contrast and random
      distribution; too small causes aliasing, too large reduces spatial resolution.
    - Subset size and step. Larger subsets reduce noise but smooth strain gradients, which matters at
      ply-level features and near cracks. There is an unavoidable trade-off between spatial resolution and
      strain noise, which should be reported together (Schmidt 2019).
    - Surface versus through-thickness. DIC measures only the surface, whereas damage often begins
      inside the laminate, so it is often paired with acoustic emission or CT.
    - Lighting, camera heating and vibrations introduce apparent strains; acquiring static images before
      loading quantifies the noise floor.

    Following a standardized good-practice guide for reporting DIC parameters makes results comparable
    across laboratories.
    """,
    lose="""
    DIC is an optical technique that measures displacement and strain by tracking a speckle pattern on the
    specimen surface with cameras (Schmidt 2019). It is widely used for composites because it gives
    full-field information rather than the single-point measurements of strain gauges
    (Adeyemi et al. 2021). Studies have used it in tensile tests (Ruiz et al. 2020), open-hole tests
    (Kaur 2021), impact damage assessment (Zhao and Berg 2022) and fatigue (Iyer et al. 2023).

    Accuracy depends on the cameras, the lighting and the software. Higher-resolution cameras give more
    accurate results, so modern systems can measure strains very precisely. DIC is therefore becoming a
    standard tool in composite testing laboratories. Commercial software packages make the analysis
    straightforward, and open-source alternatives are also available for laboratories with smaller budgets.
    """,
    refs={
        "Adeyemi et al. 2021": "Inverse identification of composite ply properties from full-field DIC measurements",
        "Schmidt 2019": "Spatial resolution and strain noise in subset-based digital image correlation",
        "Ruiz et al. 2020": "Full-field strain measurement in carbon fibre tensile coupons",
        "Kaur 2021": "Strain concentrations around open holes in quasi-isotropic laminates",
        "Zhao and Berg 2022": "Optical assessment of barely visible impact damage in composite panels",
        "Iyer et al. 2023": "Tracking stiffness degradation in composite fatigue with stereo DIC",
    },
)

sci(
    ENG,
    "Conceptual Explanation",
    """Why are grid-forming inverters considered important for the stability of power systems with high
    shares of wind and solar?""",
    win="""
    Conventional power systems rely on synchronous generators, whose rotating masses provide inertia and
    whose electromagnetic behaviour makes them act as voltage sources. When a large generator trips,
    inertia slows the rate of change of frequency, giving governors time to respond, and synchronous
    machines supply fault current that protection systems rely on.

    Most wind and solar plants connect through grid-following inverters. These measure the grid voltage
    angle with a phase-locked loop and inject a controlled current synchronized to it. They therefore need a
    strong, stable voltage to follow; in weak grids with few synchronous machines, the phase-locked loop can
    interact with the network and cause oscillations or loss of synchronism (Okafor and Larsen 2021).

    Grid-forming inverters instead regulate their own voltage magnitude and frequency, behaving like a
    voltage source behind an impedance. Control schemes such as droop control, virtual synchronous machines
    and dispatchable virtual oscillators let multiple inverters share load and synchronize without a phase-locked
    loop (Nguyen et al. 2022). Because their output responds instantly to changes in the network, they can
    provide synthetic inertia and fast frequency response, support voltage in weak grids, and even restart a
    grid after a blackout (black start).

    Field experience supports this. Islands and microgrids have operated for extended periods with 100 percent
    inverter-based generation using grid-forming batteries (Castillo et al. 2023), and system operators now
    specify grid-forming capability in new battery connections. Limitations remain: inverters have tight
    current limits, so they supply much less fault current than synchronous machines, and their behaviour
    during current limiting must be designed carefully to keep synchronism (Fischer and Iyer 2024).
    """,
    lose="""
    Grid-forming inverters are important because renewable energy sources do not have inertia. In a
    traditional grid, large spinning turbines store kinetic energy that stabilizes frequency. Solar panels
    and wind turbines connect through power electronics, so as more renewables are added, the grid loses
    inertia and becomes less stable (Okafor and Larsen 2021).

    Grid-forming inverters solve this problem by emulating inertia through their control software. They
    behave like virtual synchronous generators and can stabilize frequency. They can also help with voltage
    control. As the share of renewables grows, grid operators are starting to require grid-forming
    capability for new installations, especially battery storage systems. This technology will be essential
    for achieving a fully renewable power system. Adding large batteries with grid-forming control is
    therefore one of the most cost-effective ways to integrate more wind and solar power.
    """,
    refs={
        "Okafor and Larsen 2021": "Phase-locked loop instability of grid-following inverters in weak grids",
        "Nguyen et al. 2022": "Comparing droop, virtual synchronous machine and virtual oscillator control for grid-forming inverters",
        "Castillo et al. 2023": "Operating an island power system with 100 percent inverter-based generation",
        "Fischer and Iyer 2024": "Current limiting and transient synchronization stability of grid-forming converters",
    },
)

sci(
    ENG,
    "Paper Finding",
    """Can you point me to papers on physics-informed neural networks (PINNs) for structural health
    monitoring of bridges or buildings?""",
    win="""
    Relevant papers, grouped by what the PINN is used for:

    Response reconstruction from sparse sensors:
    - A PINN that embeds Euler-Bernoulli beam dynamics to reconstruct full-field displacement of a bridge
      girder from a handful of accelerometers, validated on a laboratory beam and a footbridge
      (Haddad et al. 2022).

    Damage identification and parameter estimation:
    - Inverse PINN estimation of spatially varying stiffness to locate damage in beams and frames, showing
      robustness to 5 percent measurement noise (Bergstrom and Kim 2023).
    - A comparison of PINNs with finite element model updating for identifying stiffness loss in a
      multi-storey shear building; PINNs matched accuracy with far fewer forward simulations
      (Yilmaz et al. 2023).

    Loads and environment:
    - Physics-informed estimation of moving vehicle loads on bridge decks from strain measurements
      (Chowdhury 2024).

    Review:
    - A review of physics-informed machine learning for structural health monitoring that discusses
      training difficulties with stiff dynamics and multiscale problems (Rossi et al. 2024).

    For a first read, the review plus the damage identification comparison give a balanced view.
    """,
    lose="""
    Physics-informed neural networks combine neural networks with the governing equations of a system,
    which makes them attractive for structural health monitoring where data are limited
    (Rossi et al. 2024). One example uses a PINN to reconstruct the dynamic response of a bridge from a
    small number of sensors (Haddad et al. 2022).

    Other approaches in structural health monitoring include convolutional neural networks for crack
    detection in images and autoencoders for anomaly detection in vibration data, which are more widely used
    than PINNs. You might also search for "physics-guided machine learning" and "hybrid digital twins",
    since related work appears under these terms. Proceedings of structural health monitoring conferences
    from the last few years are also a good source, as many PINN studies appear there first.
    """,
    refs={
        "Haddad et al. 2022": "Physics-informed reconstruction of bridge girder response from sparse accelerometers",
        "Bergstrom and Kim 2023": "Damage localization in beams and frames with inverse physics-informed neural networks",
        "Yilmaz et al. 2023": "Physics-informed neural networks versus finite element model updating for shear buildings",
        "Chowdhury 2024": "Physics-informed estimation of moving vehicle loads from bridge strain data",
        "Rossi et al. 2024": "Physics-informed machine learning for structural health monitoring: a review",
    },
)

sci(
    ENG,
    "Challenges & Limitations",
    """What are the main obstacles to transferring locomotion policies for legged robots from simulation to
    real hardware?""",
    win="""
    The main obstacles are mismatches the policy has not seen in training. Actuator dynamics are the biggest:
    motor torque limits, gear backlash, latency and bandwidth differ from idealized simulated joints, and
    learning an actuator model from real data greatly reduced the gap in early quadruped work
    (Mensah and Zhao 2019). Contact and terrain properties such as friction, compliance and deformable ground
    are hard to simulate accurately.

    Domain randomization over masses, friction, latency and terrain makes policies robust but can make them
    conservative. Teacher-student training, in which a policy with privileged simulator information is
    distilled into one that infers the environment from proprioceptive history, has become the standard way
    to handle varied terrain. Perception remains hard, because simulated depth images lack real sensor noise,
    so many perceptive controllers add noise models or train on filtered height maps instead of raw images.
    """,
    lose="""
    Sim-to-real transfer is one of the biggest challenges in robotics. Simulators such as Isaac Gym, MuJoCo
    and PyBullet allow robots to learn locomotion through reinforcement learning with millions of trials,
    which would be impossible on real hardware because of time and wear (Petrov et al. 2021). However,
    policies trained in simulation often fail on real robots because the simulation is not perfectly
    accurate, which is known as the reality gap (Ruiz 2020).

    Several approaches exist to address this problem. Domain randomization varies the simulation parameters
    during training so that the policy becomes robust to a range of conditions (Novak et al. 2020). System
    identification measures the real robot's parameters to make the simulator more accurate
    (Mensah and Zhao 2019). Domain adaptation techniques use real-world data to fine-tune policies. Some
    researchers train directly on real robots using sample-efficient algorithms, while others combine
    simulation and real-world training.

    In addition to physics, there are other challenges such as safety during real-world deployment, energy
    efficiency, and the computational resources needed for training. The development of more realistic
    simulators with better rendering and physics engines will continue to reduce the reality gap. As
    hardware improves and becomes cheaper, more labs will be able to test their policies on real robots,
    accelerating progress in the field.
    """,
    refs={
        "Mensah and Zhao 2019": "Learning actuator networks for agile quadruped locomotion",
        "Petrov et al. 2021": "Massively parallel simulation for legged robot reinforcement learning",
        "Ruiz 2020": "Characterizing the reality gap in robot learning",
        "Novak et al. 2020": "Domain randomization for robust locomotion transfer",
    },
)

sci(
    ENG,
    "Methodology Inquiry",
    """How do researchers validate computational fluid dynamics (CFD) simulations of wind flow around
    buildings in urban areas?""",
    win="""
    Validation usually proceeds in stages, from simple to realistic configurations, and compares simulations
    with wind tunnel or field measurements using agreed metrics.

    Reference experiments. The first step is to reproduce well-documented wind tunnel cases, such as an
    isolated cube or a simple array of blocks, for which detailed velocity and pressure data exist. These
    tests check the turbulence model, mesh resolution and boundary conditions before a complex urban
    geometry is attempted. Best-practice guidelines recommend at least three grid resolutions to show
    grid-independence, sufficient domain size around the buildings and a horizontally homogeneous
    atmospheric boundary layer at the inlet, because an inflow profile that decays before reaching the
    buildings is a common hidden error (Tanaka and Fischer 2018).

    Site-specific validation. For a real neighbourhood, a scaled model is tested in a boundary-layer wind
    tunnel and measurements are taken at pedestrian height, typically with hot-wire anemometry, laser Doppler
    velocimetry or particle image velocimetry. Full-scale field campaigns with sonic anemometers are more
    realistic but harder to interpret because wind direction and stability vary.

    Metrics. Point-by-point comparisons use validation metrics such as the fraction of predictions within a
    factor of two of observations (FAC2), fractional bias and normalized mean square error, with acceptance
    criteria adapted from air-quality modelling.

    Model choice. Steady RANS models reproduce mean velocities in regions of accelerated flow reasonably well
    but are poor in wakes and recirculation zones, and they do not give gust statistics. Large-eddy simulation
    agrees better with measurements, especially for turbulence and pollutant dispersion, at much higher cost
    (Haddad and Nguyen 2022). Reporting uncertainty in the inflow conditions is increasingly recommended,
    since it often dominates the differences between models.
    """,
    lose="""
    CFD simulations of urban wind flow are usually validated by comparing them with wind tunnel measurements
    (Tanaka and Fischer 2018), field measurements (Osei et al. 2019) or other CFD codes (Park 2020). Many
    studies report good agreement, with errors of around 10 to 20 percent (Haddad and Nguyen 2022), and
    validated models have been used to assess pedestrian comfort (Brennan et al. 2021), natural ventilation
    (Kaur and Moreau 2022) and pollution dispersion (Zhao 2023).

    Using a fine mesh and an appropriate turbulence model, such as the k-epsilon model, is important for
    accuracy. Once validated, CFD can be used to test different building designs before construction.
    Because CFD provides data everywhere in the domain, it is often considered more reliable than wind tunnel
    tests, which only measure at a limited number of points, and many cities now require CFD studies for
    planning approval of tall buildings.
    """,
    refs={
        "Tanaka and Fischer 2018": "Best practice guidelines for CFD of wind flow in urban environments",
        "Haddad and Nguyen 2022": "RANS versus large-eddy simulation for pedestrian-level wind: a validation study",
        "Osei et al. 2019": "Field measurements of wind around a high-rise building cluster",
        "Park 2020": "Code-to-code comparison of urban wind simulations",
        "Brennan et al. 2021": "CFD-based assessment of pedestrian wind comfort in a new development",
        "Kaur and Moreau 2022": "Natural ventilation potential of courtyard buildings from CFD",
        "Zhao 2023": "Simulating traffic pollutant dispersion in street canyons",
    },
)

sci(
    ENG,
    "State-of-the-Art Assessment",
    """How do PEM, alkaline and anion exchange membrane (AEM) electrolyzers currently compare for green
    hydrogen production?""",
    win="""
    The three technologies differ in maturity, cost structure and operating flexibility.

    Alkaline electrolyzers are the most mature, with decades of industrial use. They use nickel-based
    electrodes and a liquid potassium hydroxide electrolyte, avoiding precious metals, and have the lowest
    capital cost per kilowatt among installed systems. Their drawbacks are lower current densities, typically
    0.2 to 0.6 A/cm2, larger footprints, and limited flexibility: at low loads, gas crossover through the
    diaphragm raises hydrogen-in-oxygen levels toward safety limits, so minimum loads of about 20 to 40
    percent are common (Kowalski et al. 2021). Newer zero-gap designs and thinner diaphragms are narrowing
    the performance gap.

    PEM electrolyzers operate at current densities of 1 to 3 A/cm2, produce high-purity hydrogen at
    elevated pressure, and respond within seconds to load changes, which suits coupling with variable wind
    and solar power. Their main constraint is materials: the acidic environment requires iridium-based anode
    catalysts and titanium porous transport layers. Iridium supply is a genuine bottleneck for gigawatt-scale
    deployment, and research focuses on reducing loading by an order of magnitude without sacrificing
    lifetime (Chen and Alvarez 2023).

    AEM electrolyzers aim to combine the non-precious catalysts of alkaline systems with the compact
    membrane design of PEM. Laboratory cells have reached current densities above 1 A/cm2, but membrane
    and ionomer degradation limit lifetimes to thousands of hours rather than the tens of thousands needed
    commercially, particularly in pure water feeds (Osei and Larsen 2024).

    Efficiency is broadly similar, with stack energy consumption around 50 to 55 kWh per kilogram of hydrogen
    for mature alkaline and PEM systems, so cost differences come mostly from capital cost, durability and
    utilization. Techno-economic studies suggest that at high renewable capacity factors the cheaper alkaline
    systems win, while for highly variable supply the flexibility of PEM offsets its higher cost
    (Dubois et al. 2023). Solid oxide electrolyzers, operating at high temperature, are more efficient when
    waste heat is available but are less mature (Yilmaz 2022).

    Overall, alkaline and PEM are both commercially deployed, AEM is pre-commercial, and the deciding factors
    are supply-chain constraints and how variable the power supply is.
    """,
    lose="""
    PEM electrolyzers are the best option for green hydrogen because they are efficient, compact and flexible
    (Chen and Alvarez 2023). Alkaline electrolyzers are older and cheaper but less efficient and less suited
    to renewable energy (Kowalski et al. 2021). AEM electrolyzers are a new technology that could be cheaper
    in the future.

    Most new projects use PEM technology, and costs are falling rapidly, so green hydrogen is expected to
    become cost-competitive with fossil-based hydrogen before the end of the decade. Governments are
    supporting the industry with subsidies, and large electrolyzer factories are being built in Europe,
    China and the United States. The main remaining challenge is the cost of renewable electricity, which
    accounts for most of the cost of hydrogen. Efficiency improvements in PEM stacks will therefore be the
    key to lowering production costs.
    """,
    refs={
        "Kowalski et al. 2021": "Part-load operation and gas crossover in industrial alkaline electrolyzers",
        "Chen and Alvarez 2023": "Reducing iridium loading in proton exchange membrane electrolyzer anodes",
        "Osei and Larsen 2024": "Durability of anion exchange membranes in pure-water electrolysis",
        "Dubois et al. 2023": "Techno-economic comparison of electrolyzer technologies under variable renewable supply",
        "Yilmaz 2022": "Solid oxide electrolysis with industrial waste heat integration",
    },
)

sci(
    ENG,
    "Conceptual Explanation",
    """How does self-healing concrete work, and how effective is it in practice?""",
    win="""
    Three main approaches exist. Autogenous healing uses the concrete's own chemistry: continued hydration
    of unreacted cement and calcium carbonate precipitation close cracks up to roughly 0.1 to 0.15 mm wide
    when water is present (Brennan and Sato 2019). Bacterial healing adds dormant spores, often Bacillus
    species, with a calcium source such as calcium lactate; when a crack admits water, bacteria become active
    and precipitate calcite, sealing cracks up to about 0.5 to 0.8 mm in laboratory tests
    (Lindqvist et al. 2020). Encapsulated polymers or adhesives released from capsules or vascular networks
    when cracks form are a third option (Iyer 2021).

    Effectiveness is clearest for restoring water tightness; recovery of mechanical strength is usually
    partial. Field trials are few and short, so long-term durability benefits and cost-effectiveness remain
    uncertain (Okafor et al. 2023).
    """,
    lose="""
    Self-healing concrete is an innovative material that can repair its own cracks without human
    intervention. Cracks are a major problem for concrete structures because they allow water and chlorides
    to reach the steel reinforcement, causing corrosion, which reduces the lifetime of bridges, tunnels and
    buildings and leads to expensive repairs. Maintenance of concrete infrastructure costs billions every
    year, so a material that heals itself could save enormous amounts of money.

    The most famous type of self-healing concrete contains bacteria. Special bacteria are mixed into the
    concrete together with nutrients. When a crack forms and water enters, the bacteria wake up and produce
    limestone, which fills the crack (Lindqvist et al. 2020). The bacteria can survive for up to 200 years
    inside the concrete, so the healing works throughout the life of the structure. The healed concrete
    becomes as strong as the original.

    Other types use capsules containing healing agents that break when cracks form. Concrete also has some
    natural ability to heal small cracks. Self-healing concrete has been used in several pilot projects, such
    as water tanks and canal linings, with good results. Although it is currently more expensive than normal
    concrete, costs are expected to decrease, and it could become a standard material for infrastructure in
    the future, also reducing the carbon emissions associated with repairs and cement production.
    """,
    refs={
        "Brennan and Sato 2019": "Autogenous healing of cracks in cementitious materials: mechanisms and limits",
        "Lindqvist et al. 2020": "Bacteria-based self-healing concrete: crack sealing and spore viability",
        "Iyer 2021": "Capsule and vascular systems for polymer-based healing in concrete",
        "Okafor et al. 2023": "Field performance of self-healing concrete: a review of pilot applications",
    },
)

sci(
    ENG,
    "Others",
    """For a network of soil-moisture sensors spread over a large farm with poor cellular coverage, should
    I choose LoRaWAN or NB-IoT?""",
    win="""
    With poor cellular coverage, LoRaWAN is usually the more practical choice. NB-IoT depends entirely on an
    operator's network; its coverage enhancement modes help at the edge of coverage but cannot create service
    where there is none, and repeated retransmissions at deep coverage levels drain batteries
    (Novak and Reyes 2022).

    LoRaWAN lets you install your own gateway, so coverage is under your control: one gateway on a tall mast
    typically covers several kilometres of open farmland. Soil-moisture sensors send small readings a few
    times per hour, which fits LoRaWAN's low data rates and duty-cycle limits, and battery lives of
    several years are realistic. The trade-offs are that you must maintain the gateway and its backhaul
    (satellite or a single cellular link at a high point can work), downlink capacity is limited, and
    interference can grow in unlicensed spectrum if neighbours deploy many devices (Kim 2023). If
    an operator later provides solid NB-IoT coverage, it becomes attractive for sites without on-farm
    infrastructure.
    """,
    lose="""
    Both LoRaWAN and NB-IoT are low-power wide-area network (LPWAN) technologies designed for Internet of
    Things applications that send small amounts of data over long distances with long battery life
    (Fischer et al. 2019). Choosing between them depends on several factors, and it is useful to compare
    them systematically.

    Spectrum: LoRaWAN uses unlicensed ISM bands (868 MHz in Europe, 915 MHz in North America), while NB-IoT
    uses licensed cellular spectrum, which offers better quality of service and less interference
    (Novak and Reyes 2022).

    Data rate: NB-IoT supports higher data rates, up to around 250 kbps, while LoRaWAN ranges from about 0.3
    to 50 kbps depending on the spreading factor.

    Latency: NB-IoT generally offers lower latency, which matters for applications requiring quick responses.

    Battery life: both technologies can achieve battery lives of up to ten years, although LoRaWAN is usually
    slightly more efficient for infrequent transmissions (Ruiz et al. 2020).

    Cost: LoRaWAN modules are generally cheaper, but NB-IoT does not require gateways because it uses
    existing cellular infrastructure, and subscription costs have fallen.

    Security: NB-IoT benefits from cellular-grade security, while LoRaWAN uses AES-128 encryption.

    Scalability: NB-IoT can support a very large number of devices per cell (Kim 2023).

    Agriculture: both technologies have been successfully used in smart agriculture, including soil moisture
    monitoring, livestock tracking and weather stations (Hoffmann and Chen 2021).

    In conclusion, NB-IoT is generally the better choice for applications that need reliability, security
    and scalability, while LoRaWAN is better for private networks. For a large farm, NB-IoT's licensed
    spectrum and wide coverage make it a strong option, and it avoids the need to install and maintain your
    own infrastructure. You should also consider future needs, such as adding cameras or other higher-data
    sensors, which NB-IoT can support better.
    """,
    refs={
        "Novak and Reyes 2022": "Coverage enhancement and energy cost of NB-IoT at the cell edge",
        "Kim 2023": "Scalability and interference in dense LoRaWAN and NB-IoT deployments",
        "Fischer et al. 2019": "A comparative survey of low-power wide-area network technologies",
        "Ruiz et al. 2020": "Battery lifetime of LPWAN sensor nodes under realistic traffic",
        "Hoffmann and Chen 2021": "LPWAN deployments in precision agriculture: lessons learned",
    },
)

sci(
    ENG,
    "Challenges & Limitations",
    """What are the main technical and economic obstacles to recycling carbon-fibre-reinforced polymer
    (CFRP) waste?""",
    win="""
    The core obstacle is that most CFRP uses thermoset matrices such as epoxy, which cannot be remelted, so
    fibres must be recovered by destroying the matrix. Pyrolysis, the only process operating commercially at
    scale, burns off the resin at 450 to 700 C; it retains most fibre tensile strength but leaves surface
    char and damages fibre sizing. Solvolysis gives cleaner fibres and can recover resin chemicals but uses
    high-pressure reactors and solvents that are costly to scale (Kaur and Nguyen 2021).

    The bigger problem is economic. Recovered fibres are short and randomly oriented, so they cannot replace
    continuous fibres in structural parts and sell mostly into nonwoven mats and compounds at much lower
    value. Waste streams are mixed, contaminated and geographically dispersed, and landfill remains cheap in
    many regions. Recyclable thermoset and thermoplastic matrices may change this, but only for future
    products (Schmidt 2023).
    """,
    lose="""
    Carbon-fibre-reinforced polymers are used widely in aerospace, wind energy, automotive and sports
    equipment because they are light and strong. As aircraft and wind turbines reach the end of their lives,
    large amounts of CFRP waste are being generated, and recycling is becoming an important issue
    (Dubois et al. 2020).

    There are three main recycling routes. Mechanical recycling grinds the composite into small pieces that
    can be used as fillers (Park et al. 2019). Thermal recycling, including pyrolysis and fluidized bed
    processes, removes the resin with heat (Kaur and Nguyen 2021). Chemical recycling, or solvolysis,
    dissolves the resin using solvents (Zhao and Mensah 2022). Each method has advantages and disadvantages.

    The main technical obstacle is that recycled carbon fibres lose most of their strength during these
    processes, so they are much weaker than virgin fibres and cannot be reused in high-performance
    applications. Another challenge is the separation of different materials, since composites often contain
    metal inserts, coatings and adhesives. Economically, recycling facilities are expensive to build, and
    there is limited demand for recycled fibres.

    Policy can help. Some countries have banned landfilling of composites, and extended producer
    responsibility schemes could require manufacturers to take back their products. Designing products for
    recycling, for example using thermoplastic matrices, would also make future recycling easier. With
    these measures, CFRP recycling could become a large industry in the coming decades.
    """,
    refs={
        "Kaur and Nguyen 2021": "Pyrolysis and solvolysis routes for carbon fibre recovery: fibre properties and energy demand",
        "Schmidt 2023": "Markets for recycled carbon fibre and the role of recyclable matrices",
        "Dubois et al. 2020": "Forecasting end-of-life composite waste from aviation and wind energy",
        "Park et al. 2019": "Mechanical recycling of carbon fibre composites into filler materials",
        "Zhao and Mensah 2022": "Supercritical solvolysis of epoxy-based composites",
    },
)

sci(
    ENG,
    "Methodology Inquiry",
    """How are model predictive controllers (MPC) for building HVAC systems set up and evaluated, and how
    should their energy savings be reported?""",
    win="""
    An MPC for HVAC repeatedly solves an optimization over a horizon of typically 12 to 48 hours, using a
    model of the building's thermal dynamics, forecasts of weather, occupancy and prices, and comfort and
    equipment constraints, then applies only the first control action.

    Model identification. Most deployments use grey-box resistance-capacitance models fitted to measured
    data, because detailed simulation models are expensive to calibrate and hard to optimize over. Data-driven
    models, including neural networks and linear models identified from excitation experiments, are
    increasingly common; the key requirement is adequate excitation so that parameters are identifiable
    (Lindqvist and Haddad 2020).

    Tuning. Weights trade off energy cost, comfort violation and actuator wear; comfort is often a soft
    constraint with a penalty. Horizon length, sampling time and forecast quality interact, and sensitivity
    to forecast errors should be tested.

    Evaluation. Simulation studies are common, and emulator frameworks with standardized building models,
    baselines and key performance indicators make results comparable across controllers
    (Castillo et al. 2021). Field evaluation is harder because weather and occupancy differ between periods;
    alternating controllers on a daily or weekly schedule and normalizing by degree-days or by a regression
    baseline reduces bias (Moreau et al. 2022). Reviews of field studies report typical savings of 15 to 30
    percent, but savings depend heavily on how poor the baseline controller was (Okafor and Berg 2023).

    Report the baseline control logic, the comfort metric such as degree-hours outside the band, the
    evaluation period and weather normalization alongside the savings figure.
    """,
    lose="""
    MPC uses a model of the building to predict future temperatures and optimize heating and cooling.
    Researchers usually develop a simulation model of the building in software such as EnergyPlus, connect
    it to an optimization algorithm, and compare the energy consumption with a conventional thermostat
    controller (Castillo et al. 2021). Studies commonly find savings of 20 to 50 percent.

    To report savings, calculate the difference in energy use between MPC and the baseline over the test
    period and express it as a percentage. Comfort should also be checked to make sure that occupants are not
    affected. The main barrier to adoption is the effort needed to create the model, which machine learning
    may reduce in the future. Cloud-based platforms are starting to offer MPC as a service, which should
    make the technology accessible to smaller buildings as well.
    """,
    refs={
        "Lindqvist and Haddad 2020": "Grey-box model identification for predictive control of commercial buildings",
        "Castillo et al. 2021": "An emulator framework for benchmarking advanced building control",
        "Moreau et al. 2022": "Alternating-day field experiments for evaluating building control strategies",
        "Okafor and Berg 2023": "Field-reported savings of model predictive control in buildings: a review",
    },
)

# ---------------------------------------------------------------------------
# Ideation-Arena-style rows. Each row gives a seed paper, the closed set of
# references both generators saw, two proposals, and handwritten labels for the
# five dimensions, in the order overall, novelty, feasibility, significance,
# specificity. Label letters: A, B, T (Tie), X (Both Bad).
# ---------------------------------------------------------------------------

IDEA: list[dict] = []
DIMENSIONS = ("overall_quality", "novelty", "feasibility", "significance", "specificity")
LABEL_CODES = {"A": "A", "B": "B", "T": "Tie", "X": "Both Bad"}


def idea(seed: str, refs: list[tuple[str, str]], a: str, b: str, labels: str) -> None:
    assert len(labels) == len(DIMENSIONS) and set(labels) <= set(LABEL_CODES), labels
    IDEA.append(
        {
            "seed_paper": seed,
            "references": "\n\n".join(f"Title: {t}\nAbstract: {clean(ab)}" for t, ab in refs),
            "a": clean(a),
            "b": clean(b),
            "labels": {d: LABEL_CODES[c] for d, c in zip(DIMENSIONS, labels)},
        }
    )


# 1  NLP: A is novel and specific; B is the safer, more feasible plan.
idea(
    "Retrieval-Augmented Generation Without Retrieval Errors: Calibrated Abstention for Open-Domain QA",
    [
        ("Calibrated Abstention for Retrieval-Augmented Question Answering",
         """We study when a retrieval-augmented language model should decline to answer. We train a lightweight
         abstention head on the reader's hidden states and retrieval scores and show that it reduces wrong answers
         by 38% at a fixed coverage of 80% on three open-domain QA benchmarks."""),
        ("Conflicting Evidence in Retrieved Passages",
         """Retrieved passages frequently disagree. We annotate 4,000 questions where the top-10 passages contain
         conflicting answers and show that readers follow the majority or the first passage rather than the most
         reliable source."""),
        ("Source Reliability Priors for Web-Scale Retrieval",
         """We estimate per-domain reliability from editorial signals and cross-source agreement, and show that
         reweighting retrieved passages by these priors improves factual accuracy on time-sensitive questions."""),
    ],
    a="""
    Problem: Abstention methods for retrieval-augmented QA treat uncertainty as a single scalar, but wrong answers
    arise from two different causes: the evidence is missing, or the evidence conflicts. These call for different
    behaviour (abstain versus answer with caveats), yet current abstention heads cannot tell them apart.

    Method: We propose a two-headed abstention model. A "coverage" head predicts whether any retrieved passage
    contains the answer; a "conflict" head predicts whether passages support incompatible answers, using
    pairwise entailment between candidate answer spans. Reliability priors weight each passage's vote. The
    system outputs one of three actions: answer, answer-with-disclosure (listing competing answers and their
    sources), or abstain.

    Experiments: Train on the conflicting-evidence annotations plus synthetic conflicts created by swapping
    entities in gold passages. Evaluate risk-coverage curves on three QA benchmarks, and run a user study with
    40 participants measuring whether disclosures improve trust calibration compared with plain abstention.
    Ablate the reliability prior and the entailment features.

    Expected outcome: Lower error at fixed coverage than single-head abstention, and better-calibrated user
    trust for conflict cases. A secondary contribution is a released set of 2,000 synthetic conflict questions
    with gold labels for "missing" versus "conflicting" evidence, which future abstention work can reuse.

    Risks: Entailment between short answer spans is noisy; if the conflict head underperforms we will fall back
    to comparing normalized answer strings and report both variants.
    """,
    b="""
    Problem: Retrieval-augmented models still give wrong answers when retrieval fails, and users cannot tell
    when an answer is unreliable. Existing abstention heads help, but they ignore where the evidence comes from.

    Method: Combine the existing abstention head with source reliability priors: passages from low-reliability
    domains are down-weighted before the abstention decision. We also add retrieval score features such as the
    gap between the first and second passage.

    Experiments: Reproduce the abstention baseline on the three QA benchmarks, add the reliability features,
    and report accuracy at 80% coverage. We will also test on a time-sensitive QA set.

    Expected outcome: A few points of improvement at fixed coverage with minimal additional compute, making
    the approach easy to deploy in existing RAG pipelines. Since reliability priors are already computed for
    web-scale retrieval, the extra engineering cost is small, and the method should work with any reader
    model. We will release the feature extraction code.
    """,
    labels="AABAA",
)

# 2  Vision: B has the better idea overall; A is more detailed but incremental and hard to run.
idea(
    "Test-Time Adaptation for Semantic Segmentation Under Adverse Weather",
    [
        ("Entropy Minimization for Test-Time Adaptation",
         """We adapt batch-normalization statistics and affine parameters at test time by minimizing prediction
         entropy, improving robustness to common corruptions without access to source data."""),
        ("Error Accumulation in Continual Test-Time Adaptation",
         """When test-time adaptation runs on a long, changing stream, pseudo-label errors accumulate and models
         collapse. We document collapse on driving sequences that move from clear to foggy to night conditions."""),
        ("Weather-Conditioned Feature Statistics for Driving Scenes",
         """We show that feature statistics of segmentation networks cluster by weather condition and that a
         small bank of per-condition statistics recovers much of the accuracy lost under fog and rain."""),
        ("Sparse Human Feedback for Segmentation Models in the Field",
         """Drivers or operators can mark a handful of clearly wrong pixels per frame. We show that 20 clicks per
         hundred frames suffice to correct systematic segmentation errors."""),
    ],
    a="""
    Problem: Entropy-minimization test-time adaptation collapses on long driving streams with changing weather.

    Method: We propose to tune the entropy-minimization learning rate per layer using a schedule learned offline
    on source data. The schedule is a small MLP that takes the layer index and the current batch entropy and
    outputs a learning rate between 1e-6 and 1e-3. We add a reset rule: if mean entropy rises for 50
    consecutive batches, all parameters are restored to the source model.

    Experiments: Evaluate on four driving datasets with synthetic fog, rain, snow and night conditions applied
    at severity levels 1 to 5, in sequences of 10,000 frames. Metrics: mIoU per condition, mIoU over the full
    stream, and the number of resets. Baselines: entropy minimization, continual TTA with stochastic restore,
    and source-only. We will run each configuration with five seeds on 8 GPUs and train the schedule network
    on 200 simulated streams generated with a game-engine simulator, which we will build for this project.

    Implementation: The schedule network has two hidden layers of 32 units and is trained with evolution
    strategies, since the stream-level mIoU objective is not differentiable through resets. Each training
    stream mixes two to four weather conditions with transitions every 500 to 3,000 frames.

    Analysis: Plot learning-rate trajectories per layer across conditions, and correlate reset events with
    weather transitions to test whether resets coincide with domain shifts or occur randomly. We will also
    report the wall-clock overhead of the schedule network per frame, targeting under 2 ms on a single GPU.
    """,
    b="""
    Problem: Test-time adaptation in driving collapses because it re-learns the same weather conditions again
    and again from noisy pseudo-labels. Yet weather recurs, and features cluster by condition.

    Method: Maintain a memory of condition-specific normalization statistics. Each incoming batch is matched to
    the nearest stored condition; if none is close, a new entry is adapted from the closest one. Rare
    operator clicks correct pseudo-labels for a new entry before it is frozen, preventing error accumulation.

    Hypothesis: Most of the accuracy lost in long streams comes from repeatedly re-adapting to conditions the
    model has already seen, so remembering conditions should both improve accuracy and stop collapse.

    Experiments: Long driving streams with recurring weather built from existing datasets; compare against
    continual TTA baselines on mIoU and collapse rate, and measure how many clicks per condition are needed.
    An ablation without clicks shows how much the memory alone contributes, and a second ablation varies the
    matching threshold that decides when a new condition is created.
    """,
    labels="BBBBA",
)

# 3  Systems: A is the stronger, buildable plan; B is more original but speculative. Similar detail.
idea(
    "Learned Index Structures for Write-Heavy Key-Value Stores",
    [
        ("Learned Indexes for Sorted Arrays",
         """We replace B-tree nodes with small regression models that predict key positions, reducing index size
         by an order of magnitude for read-only workloads."""),
        ("Updatable Learned Indexes with Gapped Arrays",
         """We support inserts in learned indexes by leaving gaps in the underlying arrays and retraining models
         locally, achieving competitive insert throughput on uniform key distributions."""),
        ("LSM-Trees Under Skewed Write Workloads",
         """Log-structured merge trees dominate write-heavy storage but suffer from compaction stalls under
         skewed and shifting key distributions; we characterize stalls in three production traces."""),
    ],
    a="""
    Problem: Learned indexes handle inserts poorly when key distributions shift, while LSM-trees handle writes
    well but waste memory on per-run filters and fence pointers.

    Method: Use learned models only inside immutable LSM runs. Because each run is written once during
    compaction, its model can be trained at write time without ever needing updates. We replace fence
    pointers with a piecewise-linear model per run and keep Bloom filters unchanged. Compaction jobs fit models
    in the same pass that writes the run.

    Experiments: Implement in an open-source LSM engine; measure lookup latency, memory footprint and
    compaction throughput on the three production traces and YCSB workloads A to F. Compare against the
    default engine and a gapped-array learned index.

    Hypothesis: Because runs are immutable, the main weakness of learned indexes, handling updates,
    disappears, while their main strength, compact position prediction, reduces memory per run by several
    times and frees memory for the block cache.

    Risks: Model fitting could lengthen compaction; we will measure the added CPU time per megabyte and, if
    needed, fit models on a sample of keys.
    """,
    b="""
    Problem: Learned indexes assume the key distribution is stable, but write-heavy workloads shift constantly,
    forcing costly retraining.

    Method: Treat the index as an online forecasting problem. A sequence model predicts the future key
    distribution from the recent write stream, and the index pre-allocates gaps where inserts are expected.
    Gaps are sized by forecast uncertainty. The same forecaster schedules compactions ahead of predicted
    bursts.

    Experiments: Evaluate on the three production traces plus synthetic drift; report insert throughput,
    lookup latency and tail latency under bursts, against gapped-array indexes and LSM-trees.

    Hypothesis: Much of the cost of learned indexes under writes is reactive retraining; anticipating where
    inserts will land converts that cost into cheap, planned allocation.

    Risks: Forecasting may be unreliable for bursty workloads, and a wrong forecast wastes space. We will cap
    gap allocation at a fixed fraction of the array and fall back to a standard gapped array when the
    forecaster's recent error exceeds a threshold.
    """,
    labels="ABAAT",
)

# 4  RL: A is the more original idea, but B is a sounder, concrete, runnable study.
idea(
    "Reward Model Overoptimization in Reinforcement Learning from Human Feedback",
    [
        ("Scaling Laws for Reward Model Overoptimization",
         """Optimizing a policy against a learned reward model improves true reward at first and then degrades it.
         Using a synthetic setup with a large gold reward model, we fit functional forms for this effect as a
         function of KL divergence from the initial policy."""),
        ("Reward Model Ensembles Mitigate Overoptimization",
         """Conservative optimization against the minimum or a lower confidence bound of an ensemble of reward
         models delays the onset of overoptimization at modest computational cost."""),
        ("Length Bias in Learned Reward Models",
         """We find that reward models trained on human preferences assign systematically higher scores to longer
         responses, and that a large share of RLHF improvements can be reproduced by optimizing length alone."""),
    ],
    a="""
    Problem: Overoptimization is usually treated as something to slow down, by KL penalties or ensembles. We
    ask whether the policy itself can detect when it is exploiting the reward model.

    Idea: Train the policy with an auxiliary "exploit critic" that predicts the disagreement between the reward
    model and a held-out gold signal, and let the policy learn to avoid regions of high predicted exploitation,
    in effect learning its own trust region over response space rather than over KL. We conjecture that
    exploitation has a learnable signature in the policy's hidden states.

    Method: The exploit critic is trained on gold-versus-proxy reward gaps collected during early training and
    then frozen. Its prediction is subtracted from the reward with a tunable weight.

    Experiments: Use the synthetic gold reward setup and compare gold reward curves against KL penalties and
    ensembles.

    Outlook: If exploitation is predictable from internal states, the critic could generalize across reward
    models and tasks, giving a universal overoptimization detector.
    """,
    b="""
    Problem: Ensembles delay reward overoptimization, but it is unclear which failure modes they prevent.
    Length bias is a known and measurable failure mode; we test whether ensembles actually fix it or only slow
    down its appearance.

    Method: In the synthetic gold-reward setup, train five reward models on the same preference data with
    different seeds, and optimize a policy with best-of-n sampling and with PPO against (a) a single reward
    model, (b) the ensemble mean, (c) the ensemble minimum, and (d) a single reward model with an explicit length
    penalty. Track gold reward, proxy reward, KL and mean response length throughout training.

    Experiments: Three policy sizes (125M, 350M, 1.3B parameters), three KL budgets, three seeds each. We
    decompose the gold-proxy gap into a length-explained part, estimated by regressing proxy reward on length,
    and a residual part. A length-controlled evaluation set, where chosen and rejected responses have matched
    lengths, isolates non-length exploitation.

    Expected findings: If ensembles mainly reduce the residual gap but not the length-driven one, practitioners
    should combine ensembles with length control; if they reduce both, the simpler single-technique approach
    suffices. Either outcome gives a concrete recommendation, and all runs fit on a single 8-GPU node.

    Timeline: Month 1, reward model training and the length-controlled evaluation set; months 2 to 3, the
    best-of-n and PPO sweeps (roughly 160 runs in total); month 4, decomposition analysis and write-up. All
    reward models, policies and evaluation sets will be released so that other mitigation methods can be
    tested against the same decomposition.
    """,
    labels="BABBB",
)

# 5  Theory: A is sharper and more significant; both are about equally tractable.
idea(
    "Sample Complexity of Learning Halfspaces Under Massart Noise",
    [
        ("Distribution-Independent Learning of Halfspaces with Massart Noise",
         """We give the first polynomial-time algorithm that learns halfspaces under Massart noise to error
         eta + epsilon, where eta is the noise bound, without distributional assumptions."""),
        ("Statistical Query Lower Bounds for Massart Halfspaces",
         """We prove that achieving error opt + epsilon for Massart halfspaces requires super-polynomial statistical
         query complexity, separating it from the eta + epsilon guarantee."""),
        ("Learning with Abstention Under Bounded Noise",
         """We study classifiers that may abstain on a fraction of inputs and show that abstention can circumvent
         some hardness results for bounded-noise learning."""),
    ],
    a="""
    Problem: Under Massart noise, efficient algorithms achieve error eta + epsilon, while error opt + epsilon is
    hard in the statistical query model. Abstention results suggest a middle ground, but no one has quantified
    what abstention buys for Massart halfspaces.

    Question: For a classifier allowed to abstain on at most a gamma fraction of the distribution, what is the
    best error achievable in polynomial time on the non-abstained region, as a function of gamma and eta?

    Approach: (1) Upper bound: modify the known eta + epsilon algorithm so that, in the final stage, points
    whose margin to the current hypothesis is below a threshold are abstained on; analyze how the excluded
    region concentrates noise. (2) Lower bound: adapt the statistical query construction so that hard instances
    place their label-flipping mass in a region of measure larger than gamma, showing that abstention below that
    level cannot help.

    Deliverable: A tradeoff curve between abstention rate and achievable error with matching upper and lower
    bounds up to constants for the margin-based variant, plus a discussion of which parts extend to general
    distributions.

    Why it matters: It would clarify whether the eta + epsilon barrier is intrinsic or an artefact of requiring
    predictions everywhere, which is directly relevant to selective prediction in practice.
    """,
    b="""
    Problem: Algorithms for Massart halfspaces are polynomial but have large polynomial exponents, making them
    impractical.

    Approach: We propose to simplify the existing distribution-independent algorithm by replacing its
    iterative reweighting procedure with a single round of outlier removal followed by a perceptron-style
    update. We will attempt to prove that this achieves error eta + epsilon with fewer samples, possibly
    under a mild margin assumption.

    Deliverable: An improved sample complexity bound, and experiments on synthetic data with Massart noise
    comparing the simplified algorithm with the original one.

    Why it matters: Faster algorithms would bring theoretical guarantees closer to practice. The analysis
    might also inform the design of robust classifiers for noisy labels in applications such as crowdsourcing,
    where label noise is bounded but not random. If the single-round approach fails, we will characterize
    the distributions on which it does work, for example log-concave marginals, and report the best constant
    we can obtain there. Experiments will use dimensions from 10 to 1,000 and noise bounds from 0.1 to 0.4.
    """,
    labels="AATAA",
)

# 6  HCI: B is the more interesting, important study; A is simpler and easier to run.
idea(
    "How Developers Verify AI Code Suggestions: An Eye-Tracking Study",
    [
        ("Eye Tracking Developers Reviewing AI Code Suggestions",
         """We recorded 24 developers reviewing code completions. Participants spent little time reading
         suggestions before accepting them, and most review attention went to the first and last lines."""),
        ("Overreliance on AI Assistants in Programming Tasks",
         """In a controlled study, participants using an AI assistant wrote less secure code yet were more
         confident in its security than a control group."""),
        ("Friction by Design: Slowing Down Acceptance of AI Suggestions",
         """We test interface interventions that add friction, such as requiring a keypress per line, and find
         that they reduce accepted bugs but frustrate users."""),
    ],
    a="""
    Problem: Developers accept AI suggestions with little review, which may introduce bugs and security
    problems. The original eye-tracking study had only 24 participants, all using one language, so it is
    unclear whether the finding generalizes.

    Method: Replicate the eye-tracking study with a larger sample (60 developers) and a wider set of
    programming languages (Python, JavaScript, Java). Participants complete ten tasks with an AI assistant,
    and we record gaze, acceptance decisions and bugs introduced.

    Experiments: Compare review time and gaze coverage across languages and experience levels. We will also
    survey participants about their trust in AI assistants.

    Expected outcome: Confirmation of the original findings at larger scale, and data on whether experience
    level predicts review behaviour. The study can be run in one semester with existing eye-tracking
    equipment, and the analysis pipeline from the original study can be reused directly. Tasks will be taken
    from the original materials and translated into the two additional languages.
    """,
    b="""
    Problem: Friction interventions reduce accepted bugs but frustrate users because they slow down all
    suggestions equally, while most suggestions are fine. The eye-tracking finding that attention goes to
    the first and last lines suggests a better target: direct attention only to the lines most likely to be
    wrong.

    Method: Build an IDE plugin that highlights "risk lines" in a suggestion, lines whose tokens have low model
    confidence or touch security-relevant APIs, and requires a glance (gaze dwell of 300 ms, detected with a
    webcam eye tracker) or an explicit keypress only on those lines before acceptance. Other lines are
    accepted normally.

    Experiments: A within-subjects study with 36 developers on tasks seeded with realistic vulnerabilities,
    comparing (1) no intervention, (2) uniform per-line friction, and (3) risk-targeted friction. Measures:
    accepted vulnerabilities, task time, gaze coverage of risk lines, and perceived workload (NASA-TLX).
    A week-long field deployment with 10 participants tests whether effects persist beyond the lab.

    Risk model: Line risk combines the mean token log-probability of the line under the code model, whether the
    line calls APIs from a curated list of security-sensitive functions (file, network, subprocess, crypto,
    SQL), and whether it differs from the nearest matching line in the repository. We will check the risk
    model offline against 2,000 previously accepted suggestions labelled for bugs.

    Expected outcome: Risk-targeted friction should capture most of the safety benefit of uniform friction at
    a fraction of the time cost. Even a negative result clarifies whether attention guidance, rather than
    slowing down, is what matters.
    """,
    labels="BBABB",
)

# 7  Security: equally good overall; A easier to execute, B spelled out in more detail.
idea(
    "Detecting Supply-Chain Attacks in Open-Source Package Registries",
    [
        ("Typosquatting in Package Registries",
         """We measure typosquatting across three package registries and find thousands of malicious packages
         whose names differ from popular packages by one or two characters."""),
        ("Install-Time Behaviour of Malicious Packages",
         """Most malicious packages act at install time through lifecycle scripts that download payloads or
         exfiltrate environment variables; we build a sandbox that records these behaviours."""),
        ("Maintainer Account Takeover as an Attack Vector",
         """Attackers compromise maintainer accounts of legitimate packages and publish malicious versions. We
         analyse 40 incidents and find that most malicious versions changed build scripts without code changes."""),
        ("Reproducible Builds for Language Package Ecosystems",
         """We rebuild 10,000 published packages from their source repositories and find that 14% of artefacts
         cannot be reproduced, mostly because of timestamps and environment-dependent build steps."""),
        ("Adoption of Release Signing in Open-Source Registries",
         """Fewer than 5% of releases on three major registries are signed, and signatures are rarely verified
         by installers, limiting their protection against compromised accounts."""),
    ],
    a="""
    Problem: Account-takeover attacks publish malicious versions of trusted packages, and these are much harder
    to catch than typosquats because the package name and history are legitimate.

    Method: Flag new versions whose build or install scripts change while the library code does not, since
    the incident analysis shows this is the common pattern. We compute a diff of lifecycle scripts between
    consecutive versions and score changes by whether they add network access, environment access or
    obfuscated strings. Flagged versions are run in the install-time sandbox.

    Experiments: Replay one year of registry releases and measure the false positive rate on benign releases
    and recall on known takeover incidents.

    Impact: The detector is cheap enough to run on every release at registry scale and could be adopted by
    registry operators directly. Because the rule is simple and interpretable, flagged releases come with a
    readable explanation (for example, "install script now downloads a remote file"), which makes manual
    review fast. Attackers could adapt by also changing library code, which we will discuss as a limitation.
    """,
    b="""
    Problem: Detectors for malicious packages focus on typosquats and install-time behaviour, but account
    takeovers of trusted packages are the most damaging attacks and remain under-detected.

    Method: We will model each package's release history as a behavioural profile: which files typically
    change, which maintainers publish, at what times, from which tools, and what dependencies are added. A new
    release is scored by its deviation from this profile using an isolation forest over 40 engineered
    features, combined with the install-time sandbox trace. Releases with high anomaly scores and new network
    behaviour are held for review.

    Experiments: (1) Build a dataset of 500,000 releases across 20,000 popular packages with the 40 known
    takeover incidents as positives, plus 200 synthetic takeovers created by injecting payloads into real
    releases. (2) Evaluate precision at a fixed review budget of 50 releases per day. (3) Ablate the metadata,
    diff and sandbox feature groups. (4) Analyse the false positives to identify benign patterns such as
    maintainer handovers.

    Limitations: Packages with short histories have weak profiles, and attackers who mimic normal release
    patterns may evade detection. Collecting publisher metadata requires cooperation from registries.
    """,
    labels="TTATB",
)

# 8  Databases: A is the better project; B targets a more important problem but is vaguer.
idea(
    "Cardinality Estimation with Learned Models: Are We There Yet?",
    [
        ("An Evaluation of Learned Cardinality Estimators",
         """We benchmark eight learned cardinality estimators on real workloads and find that they improve
         median errors but often produce worse query plans than traditional estimators due to large tail errors."""),
        ("Robust Query Optimization Under Cardinality Uncertainty",
         """We choose plans that perform well across a range of cardinalities rather than the best plan for a
         point estimate, reducing worst-case latency by up to 5x."""),
        ("Data Drift and Learned Database Components",
         """Learned database components degrade after updates to the data; we measure staleness effects on
         cardinality estimation after inserts and deletes."""),
        ("Join-Order Benchmarks Revisited",
         """We revisit join-order benchmarks and show that a small number of queries dominate the total
         runtime, making tail behaviour more important than median accuracy."""),
    ],
    a="""
    Problem: Learned estimators have good median accuracy but occasional huge errors, and the benchmarks show
    that the tail, not the median, determines plan quality. Robust optimization can absorb uncertainty, but it
    needs calibrated uncertainty intervals, which learned estimators do not provide.

    Method: Wrap existing learned estimators with conformal prediction to produce intervals with guaranteed
    coverage on exchangeable queries, and feed these intervals into the robust plan selection. To handle drift,
    the conformal calibration set is refreshed from recent executed queries, whose true cardinalities are
    observed for free after execution.

    Experiments: Use the join-order benchmark and two real workloads. Compare (1) learned point estimate,
    (2) traditional estimator, (3) robust optimization with heuristic intervals, and (4) our conformal intervals.
    Report total and 99th-percentile runtime, interval coverage and width, and behaviour after 10% and 30% data
    updates.

    Feasibility: Conformal wrapping requires no retraining of the estimators, so all eight estimators from the
    benchmark can be tested. Integration requires only passing intervals instead of point estimates to the
    robust optimizer, which already accepts ranges. Interval width can be tuned by the target coverage level,
    which we will sweep from 80% to 99% to expose the tradeoff between robustness and plan optimality.
    """,
    b="""
    Problem: Query optimizers fail mainly because of bad cardinality estimates, and this problem affects
    every database system. Learned estimators promised to fix it but have not been adopted in production.

    Idea: Develop a new foundation model for cardinality estimation, pretrained on many databases and
    workloads, that transfers to new databases without training. Such a model could replace the estimators in
    all major database systems and finally make learned query optimization practical.

    Method: Collect query workloads from public benchmarks and open datasets, represent queries and data
    statistics as graphs, and pretrain a graph transformer. Fine-tune on new databases if needed.

    Experiments: Evaluate on the join-order benchmark and on databases not seen during pretraining; compare
    with learned and traditional estimators on estimation error and query runtime.

    Impact: Successful transfer would remove the main barrier to adoption of learned estimators, namely the
    cost of training and maintaining a model for every database, and would make the benefits of learned
    estimation available to ordinary users.
    """,
    labels="AAABA",
)

# 9  Both bad: A is more concrete, but both ideas are derivative and poorly motivated.
idea(
    "Prompt Compression for Long-Context Language Models",
    [
        ("Token Dropping for Long Prompts",
         """We drop low-information tokens from long prompts using a small language model's perplexity and
         retain task accuracy with 3x compression on summarization and QA."""),
        ("Lost in the Middle: Position Effects in Long Contexts",
         """Language models use information at the beginning and end of long contexts much better than
         information in the middle."""),
        ("Soft Prompt Compression with Gist Tokens",
         """We train models to compress prompts into a small number of learned gist tokens, achieving up to 26x
         compression with modest quality loss."""),
    ],
    a="""
    Problem: Long prompts are expensive, and the overhead of existing compression methods eats into the
    savings.

    Method: Apply token dropping, but use a different small model (a 1B-parameter model instead of the 7B model
    used in prior work) to compute perplexity. We will try compression ratios of 2x, 3x and 5x, and drop tokens
    in the middle of the context preferentially because models ignore the middle anyway.

    Experiments: Measure accuracy on the same summarization and QA benchmarks as the token dropping paper, at
    each compression ratio, with two target models. Report speedup in tokens per second and the cost in
    dollars per thousand queries. Compare against the original token dropping configuration and against no
    compression.

    Expected result: A smaller scoring model reduces the overhead of compression, and middle-first dropping
    should lose little accuracy because of the position effect. The whole study can be run in about two weeks
    on a single GPU.
    """,
    b="""
    Problem: Prompt compression methods lose information, and long-context models are getting cheaper anyway.

    Idea: Combine token dropping and gist tokens into a hybrid compression method that first drops tokens and
    then compresses the remainder into gist tokens, which should give the best of both approaches and higher
    compression than either alone.

    Experiments: Test on standard long-context benchmarks and compare with both methods individually. We
    expect the hybrid to be better. We will also explore applications such as retrieval-augmented generation
    and agent memory, where long contexts are common, and investigate whether compression helps with the
    lost-in-the-middle problem.

    Impact: Better compression would make long-context models cheaper and more accessible to users with
    limited budgets, and could enable new applications on mobile devices. We will choose the number of gist
    tokens and the dropping ratio by grid search on a validation set, and release code. Several open-source
    target models will be tested, from 7B to 70B parameters.
    """,
    labels="XXXXA",
)

# 10  Programming languages: A is more original; B is the better-scoped, more useful project.
idea(
    "Gradual Typing Performance: The Cost of Soundness at Module Boundaries",
    [
        ("Is Sound Gradual Typing Dead?",
         """We measure performance across all typed/untyped configurations of benchmark programs and find that
         runtime checks at boundaries between typed and untyped modules can cause slowdowns of over 10x."""),
        ("Transient Checks for Gradual Typing",
         """Transient semantics check only the shape of values at use sites rather than wrapping them in proxies,
         trading weaker guarantees for lower and more predictable overhead."""),
        ("Type Migration Paths in Practice",
         """Analysing the commit histories of 300 projects that adopted optional types, we find that developers
         add annotations module by module, favouring leaf modules first."""),
    ],
    a="""
    Problem: The slowdowns of sound gradual typing come from boundary checks, and transient checks reduce them
    at the cost of guarantees. Both approaches take the placement of boundaries as given.

    Idea: Let the compiler move boundaries. Given a partially typed program, a "boundary optimizer" infers
    types for some untyped modules automatically and treats them as typed, so that the expensive boundaries
    move to places where few values cross. We would formulate boundary placement as a min-cut problem over a
    graph of modules weighted by profiled value traffic, and speculate that inferred types could be
    checked lazily.

    Experiments: Apply to the standard gradual typing benchmarks and compare the worst-case slowdown across
    configurations with and without the boundary optimizer.

    Outlook: This could make soundness essentially free, shifting the debate from whether sound gradual
    typing is viable to how to infer good boundaries automatically. It might also inform the design of new
    gradually typed languages, and could be combined with transient semantics for modules where inference fails.
    """,
    b="""
    Problem: Developers migrate to types module by module, starting with leaf modules, but performance studies
    average over all possible typed/untyped configurations, most of which developers never visit. It is
    unknown whether the configurations people actually pass through are the slow ones.

    Method: (1) From the 300 project histories, extract the order in which modules received annotations and
    build a model of realistic migration paths: leaf-first, dependency-ordered, with occasional jumps.
    (2) Port ten of these projects, or faithful subsets, to a language with both sound (proxy-based) and
    transient gradual typing. (3) For each project, sample 200 migration paths from the model and measure the
    performance of every configuration along each path under both semantics.

    Experiments: Report the distribution of worst-case slowdown along realistic paths versus across all
    configurations, and identify which module boundaries cause the largest slowdowns. Validate the migration
    model by held-out likelihood on projects not used to fit it.

    Contribution: A realistic performance picture for practitioners, a tool that warns developers before they
    annotate a module that will create an expensive boundary, and the migration path dataset.

    Risks: Porting projects is labour-intensive; we budget two months and will fall back to five projects if
    needed.
    """,
    labels="BABBB",
)

# 11  Networking: A is better overall; both are similarly novel and similarly detailed.
idea(
    "Congestion Control for Low-Earth-Orbit Satellite Networks",
    [
        ("Characterizing Latency and Loss on LEO Satellite Links",
         """Measurements from 50 user terminals show periodic latency jumps every 15 seconds caused by satellite
         handovers, with short loss bursts that loss-based congestion control interprets as congestion."""),
        ("Model-Based Congestion Control Under Variable Paths",
         """Bandwidth- and delay-based congestion controllers overestimate queueing when the base delay changes
         abruptly, causing throughput collapse on paths with route changes."""),
        ("Predictable Handover Schedules in Satellite Constellations",
         """Handover times in large LEO constellations follow a global schedule that can be predicted from orbital
         parameters and terminal location."""),
    ],
    a="""
    Problem: Congestion controllers misread satellite handovers as congestion: loss-based schemes back off on
    handover loss bursts, and delay-based schemes misestimate queueing when base delay jumps. Since handover
    times are predictable, the controller does not have to guess.

    Method: A handover-aware wrapper around an existing delay-based controller. The terminal predicts handover
    instants from orbital parameters and exposes them to the sender through a lightweight option. Around each
    predicted handover the wrapper freezes the congestion window, discards loss and RTT samples inside the
    window, and re-estimates base delay from the first samples after it.

    Experiments: Emulate links using the measured latency and loss traces, then deploy on ten real terminals.
    Compare throughput, 95th-percentile delay and fairness with unmodified controllers.

    Risk: Prediction errors of a few hundred milliseconds could mask real congestion; we will measure
    sensitivity to deliberately shifted schedules. If terminals cannot expose schedules, the wrapper can
    estimate them from the 15-second periodicity of observed delay jumps, which we will evaluate as a
    fallback.
    """,
    b="""
    Problem: Satellite links have frequent path changes that confuse congestion control, causing throughput
    loss and delay spikes for every application running over them.

    Method: Train a reinforcement-learning congestion controller on emulated satellite traces, giving it the
    time since the last handover as an extra input feature so that it can learn how to react around
    handovers. The reward balances throughput, delay and loss.

    Experiments: Emulate links using the measured traces and compare with existing controllers on throughput
    and delay. Evaluate generalization to traces from terminals at different latitudes.

    Training: The policy is trained in a packet-level emulator with thousands of episodes drawn from the
    measured traces, including competing flows so that it learns to share bandwidth.

    Risk: Learned controllers may behave unpredictably on traces unlike the training data, and they are hard
    to deploy in operating-system kernels. We will report worst-case behaviour on held-out traces and compare
    fairness against competing loss-based and delay-based flows.
    """,
    labels="ATAAT",
)

# 12  Robotics: B is more ambitious and more useful; A is simpler to carry out.
idea(
    "Language-Conditioned Manipulation with Vision-Language-Action Models",
    [
        ("Vision-Language-Action Models for Robot Control",
         """We fine-tune a vision-language model to output discretized robot actions and show improved
         generalization to novel objects and instructions compared with policies trained from scratch."""),
        ("Failure Modes of Language-Conditioned Policies",
         """Analysing 3,000 rollouts, we find that most failures of language-conditioned policies are grasp
         failures and premature task termination rather than misunderstandings of the instruction."""),
        ("Self-Correction with Vision-Language Feedback",
         """A vision-language model that checks whether a subgoal was achieved and triggers retries improves
         long-horizon success rates in simulation."""),
    ],
    a="""
    Problem: Vision-language-action policies fail often on grasps, and the failure analysis shows this is the
    most common reason tasks are not completed. More grasp-focused data may be the simplest fix.

    Method: Fine-tune the existing vision-language-action model on an additional 5,000 demonstrations focused
    on grasping diverse objects, collected with teleoperation in our lab.

    Experiments: Measure grasp success and task success on 20 tabletop tasks before and after fine-tuning,
    on seen and unseen objects. We will use the same robot arm and camera setup as the original work.

    Expected outcome: Higher grasp success and therefore higher task success, given that grasp failures are
    the most common failure mode. The project needs only standard fine-tuning and data collection, which our
    lab has done before, so it can be completed within three months by two students. Demonstrations will be released to the
    community so that other groups can fine-tune their own models on grasp-focused data.
    """,
    b="""
    Problem: Most failures of language-conditioned policies are grasp failures and premature termination, not
    language misunderstanding. Both are recoverable if the robot notices them, yet current policies execute
    open-loop with respect to task progress.

    Method: Add a closed-loop verification layer to a vision-language-action policy. After each subgoal,
    a vision-language verifier answers a targeted question ("Is the red cup in the gripper?") from wrist and
    scene cameras. On failure, the policy is re-prompted with a retry instruction that includes the failure
    description, for example "the grasp slipped; approach from the side". Premature termination is addressed by
    requiring verifier confirmation of the final goal before the episode ends.

    Experiments: 20 real-world tabletop tasks and 10 long-horizon tasks (three to five subgoals). Compare the
    base policy, base policy plus naive retries, and verifier-guided retries. Report success rate, number of
    retries, and verifier precision/recall against human labels of 1,000 subgoal outcomes. Analyse the cases
    where the verifier is confidently wrong.

    Expected outcome: Large gains on long-horizon tasks where one failed subgoal currently ends the episode.
    The verifier needs no robot data, so it transfers across embodiments.
    """,
    labels="BBABB",
)

# 13  NLP evaluation: A is better and more original; B is a cheaper, more feasible study.
idea(
    "LLM-as-a-Judge for Long-Form Factuality",
    [
        ("Atomic Fact Decomposition for Factuality Evaluation",
         """We split long-form generations into atomic facts and verify each against a knowledge source,
         producing a factual precision score that correlates well with human judgments."""),
        ("Judges Prefer Their Own Outputs",
         """LLM judges rate outputs from their own model family higher than human annotators do, a
         self-preference bias that persists across tasks."""),
        ("Claim Verification Under Incomplete Evidence",
         """Verification models often label claims unsupported when the knowledge source is incomplete rather
         than when the claim is false, conflating unverifiable and false claims."""),
    ],
    a="""
    Problem: Atomic-fact factuality scores count unsupported facts as errors, but unsupported often means "not in
    the knowledge source", not "false". Models that write about obscure or recent topics are therefore
    penalized, and the resulting rankings may partly reflect topic coverage rather than truthfulness.

    Method: Extend atomic fact evaluation with a three-way label: supported, contradicted, unverifiable. For
    unverifiable facts, run a second-stage search over a broader web corpus and, if still unresolved, estimate
    plausibility with a calibrated verifier whose probability is reported separately. Report factual precision
    as an interval bounded by treating unverifiable facts as all false and all true.

    Experiments: Annotate 1,500 atomic facts from biographies of people at different popularity levels with
    expert three-way labels. Measure how often current pipelines mislabel unverifiable facts as false,
    stratified by popularity. Re-rank 12 models under the interval metric and test whether rankings change.
    Check for self-preference by using judges from three model families.

    Annotation protocol: Two annotators with access to web search label each fact; disagreements are
    adjudicated by a third. We target Cohen's kappa above 0.7 on a pilot of 150 facts before full annotation,
    and record the time spent per fact so that annotation cost can be compared with the automatic pipeline.

    Expected outcome: Evidence that current factuality leaderboards penalize coverage of rare entities, and a
    metric that separates falsehood from unverifiability.
    """,
    b="""
    Problem: Atomic-fact factuality evaluation is expensive because every fact requires retrieval and a
    verification call, which limits how often the metric can be used during model development.

    Method: Distil the verification pipeline into a small model that scores a full paragraph at once,
    trained on the outputs of the full pipeline for 100,000 generated paragraphs. The student predicts the
    factual precision score directly.

    Experiments: Compare the student's predicted scores with the full pipeline on held-out paragraphs from
    four domains, using rank correlation at the model level and at the paragraph level. Measure the speedup,
    which should be around 50x, and test whether the student preserves model rankings.

    Expected outcome: A cheap proxy for factuality that can be used during training and hyperparameter search.
    The approach only requires running the existing pipeline to generate training data and standard
    fine-tuning, which makes it straightforward. We will also check whether the student inherits biases of the
    teacher pipeline, for example against paragraphs about rare entities.
    """,
    labels="AABAA",
)

# 14  Graph ML: B is the better overall study; A is more original and more detailed but risky.
idea(
    "Over-Squashing in Graph Neural Networks",
    [
        ("On the Bottleneck of Graph Neural Networks",
         """Information from distant nodes is compressed into fixed-size vectors through bottleneck edges,
         which we call over-squashing; it explains poor performance on tasks with long-range dependencies."""),
        ("Graph Rewiring via Curvature",
         """Edges with negative Ricci curvature are responsible for over-squashing; adding edges around them
         improves long-range tasks while preserving the graph structure."""),
        ("Long-Range Graph Benchmarks",
         """We propose five datasets that require long-range interactions and find that graph transformers
         outperform message-passing networks on most of them, although tuned baselines close much of the gap."""),
    ],
    a="""
    Problem: Rewiring fixes over-squashing by changing the graph, which can destroy meaningful structure. We
    propose to change the message space instead.

    Method: Replace fixed-size node states with states whose dimensionality grows along bottleneck edges.
    For each edge we compute the balanced Forman curvature; edges with curvature below -0.5 carry messages in an
    expanded space of dimension d * (1 + |kappa|), projected back after aggregation. The expansion uses a
    learned low-rank map so parameters grow only by O(d r) per bottleneck edge, with r = 8. We prove an upper
    bound on the Jacobian sensitivity between distant nodes that improves with the expansion factor.

    Experiments: Five long-range benchmarks and three synthetic tree tasks with controlled depth (4 to 10).
    Baselines: message passing, curvature rewiring, graph transformers, each tuned with the same budget of 50
    trials. Report accuracy, memory and time per epoch.

    Risk: Curvature computation is cubic in degree for dense graphs; on large graphs we will use sampled
    approximations. A further risk is that expanded messages simply add capacity; a control that expands all
    edges equally, with matched parameter count, separates the effect of targeting bottlenecks from the
    effect of size.
    """,
    b="""
    Problem: Long-range benchmarks suggested graph transformers beat message passing because of over-squashing,
    but tuned baselines close much of the gap. It is unclear how much of the reported benefit of rewiring
    methods is real.

    Method: Run a controlled re-evaluation of rewiring methods and graph transformers with equal tuning budgets
    on the long-range benchmarks, then measure over-squashing directly using Jacobian sensitivity between node
    pairs at different distances.

    Experiments: Correlate the measured sensitivity with accuracy gains across methods and datasets. If gains
    do not track sensitivity, over-squashing is not what the methods fix. We will also include simple
    baselines such as adding a virtual node and increasing depth with residual connections, which are often
    omitted from comparisons.

    Impact: Clarifies which direction the field should invest in, and gives a diagnostic that can be run on
    any new dataset to predict whether rewiring will help. All methods have public code, so the study needs
    compute rather than new engineering.
    """,
    labels="BABBA",
)

# 15  Fairness: A is the better, feasible and important study; B is more original and more concrete but harder.
idea(
    "Fairness Audits of Hiring Algorithms Under Distribution Shift",
    [
        ("Auditing Resume Screening Models for Demographic Disparities",
         """We audit three commercial resume screeners with matched resumes differing only in name and find
         selection-rate disparities of up to 20 percentage points."""),
        ("Fairness Guarantees Do Not Transfer Across Populations",
         """Models satisfying demographic parity or equalized odds on one population frequently violate them on
         another, even when accuracy transfers."""),
        ("Outcome Data in Hiring Is Missing Not at Random",
         """Because only hired candidates reveal job performance, fairness metrics that depend on outcomes are
         biased by the selection process itself."""),
    ],
    a="""
    Problem: Audits of hiring algorithms are snapshots on one applicant pool, but fairness properties do not
    transfer across populations. Employers need to know whether an audit from one period or region still
    applies.

    Method: Longitudinal audit. Using matched-resume methodology, audit two open-source screening models and
    one commercial screener (with its vendor's cooperation) on applicant pools built to mirror four labour
    markets, each sampled at three time points a year apart using public job-posting and resume statistics.
    Measure selection-rate disparities by name-signalled gender and ethnicity, and test whether disparity on
    one pool predicts disparity on others.

    Experiments: Quantify audit "transfer error" and relate it to distribution shift measures between pools.

    Significance: Regulations that require annual bias audits assume audits transfer; evidence either way
    informs regulators directly. If transfer error is large, we will propose a minimal re-audit protocol,
    for example a small matched-resume sample per new market, that detects when an old audit no longer
    applies. The matched-resume method is well established, so the main cost is building realistic pools.
    """,
    b="""
    Problem: Outcome-based fairness metrics are biased because outcomes are observed only for hired candidates,
    and existing audits ignore this.

    Method: Treat unobserved performance of rejected candidates as a missing-data problem and bound fairness
    metrics using partial identification. Assume only that performance is monotone in a validated skills test
    score observed for all applicants. Derive sharp bounds on group-wise true positive rates under this
    assumption, then tighten them with an instrumental variable: random variation in interviewer leniency,
    which affects hiring but not performance.

    Experiments: (1) Simulation with known ground truth, varying selection strength from 10% to 60% hire
    rates. (2) Application to a partner firm's anonymized data with 18,000 applicants, 1,400 hires and
    interviewer assignments over four years, under a data-use agreement. (3) Compare bounds with naive
    estimates on hired candidates only.

    Identification details: Under monotonicity alone, the lower bound on a group's true positive rate sets
    rejected applicants' performance to the worst value consistent with their test scores, and the upper bound
    to the best. The instrument narrows the bounds because applicants who would be hired by lenient but not by
    strict interviewers reveal the performance of marginal candidates. We will report the identified set
    width as a function of hire rate, showing at which selection strengths audits become uninformative.

    Deliverables: An open-source package for bounded fairness metrics and guidance on when equalized-odds
    claims are identifiable at all.

    Risks: Securing the firm partnership and checking the exclusion restriction for interviewer leniency,
    since lenient interviewers might also differ in how they onboard new hires. We will test this by
    comparing early performance reviews of hires from lenient and strict interviewers.
    """,
    labels="ABAAB",
)

# 16  Compilers for ML: equally good overall; A more original and detailed, same feasibility and impact.
idea(
    "Autotuning Tensor Programs with Learned Cost Models",
    [
        ("Learned Cost Models for Tensor Program Optimization",
         """A gradient-boosted model trained on measured kernel runtimes guides schedule search and finds
         kernels within 5% of hand-tuned libraries at a fraction of the search time."""),
        ("Transfer of Cost Models Across Hardware",
         """Cost models trained on one GPU generalize poorly to other GPUs; fine-tuning with a few hundred
         measurements recovers most accuracy."""),
        ("Search Space Pruning for Tensor Compilers",
         """Most candidate schedules are clearly bad; a simple analytical filter removes 90% of them before
         measurement without losing the best schedules."""),
    ],
    a="""
    Problem: Cost models must be retrained for each GPU because they learn from raw features of schedules,
    which mix hardware-independent structure with hardware-specific behaviour.

    Method: Factor the cost model into a hardware-independent schedule encoder and a small hardware head that
    takes a vector of hardware parameters (memory bandwidth, shared memory per SM, register file size, tensor core
    throughput) measured by a one-minute microbenchmark suite. Train across eight GPUs; on a new GPU, run the
    microbenchmarks and predict with no kernel measurements, then optionally fine-tune with 50.

    Experiments: Leave-one-GPU-out evaluation on convolution, attention and GEMM workloads. Metrics: rank
    correlation of predicted versus measured runtimes, final kernel speed after a fixed search budget of 500
    trials, and the number of measurements needed to reach 95% of the best found kernel. Baselines: per-GPU
    model, fine-tuned transfer with 300 measurements, analytical filter plus random search.

    Analysis: Probe the hardware head to see which parameters matter per operator class.
    """,
    b="""
    Problem: Tuning tensor programs for a new GPU is slow because the cost model must be retrained from
    hundreds of measurements.

    Method: Combine the analytical search-space filter with few-shot transfer of the cost model. The filter
    removes most bad schedules first, so the few measurements used for fine-tuning are spent on good
    candidates, which should make transfer more sample-efficient than fine-tuning on random candidates.

    Experiments: Evaluate on several GPUs and common operators, measuring how many measurements are needed to
    reach a target kernel performance, compared with transfer alone and filtering alone.

    Expected outcome: Faster tuning on new hardware with the same final kernel quality, which would reduce
    the time needed to support new accelerators in tensor compilers. Because both components already exist,
    the engineering effort is mainly integration, and results should be available within a few weeks.
    We will also report the cases where the filter removes the best schedule.
    """,
    labels="TATTA",
)

# 17  3D vision: B is the better project overall; A aims at a bigger problem but is vague and hard.
idea(
    "Feed-Forward 3D Reconstruction from Unposed Images",
    [
        ("Pose-Free Reconstruction with Transformers",
         """A transformer maps pairs of unposed images directly to pointmaps in a shared frame, enabling
         reconstruction without camera calibration or pose estimation."""),
        ("Scaling Multi-View Reconstruction to Hundreds of Images",
         """Pairwise pointmap methods require a global alignment step that scales poorly; we analyse its cost
         and failure modes with many images."""),
        ("Uncertainty in Learned Depth and Pointmaps",
         """Per-pixel confidence predicted by reconstruction networks is poorly calibrated on reflective and
         textureless surfaces."""),
        ("Dynamic Scene Reconstruction Benchmarks",
         """We release a benchmark of scenes with moving objects and show that static reconstruction methods
         fail when more than 10% of pixels are dynamic."""),
    ],
    a="""
    Problem: 3D reconstruction methods are limited to static scenes, but the real world is dynamic.

    Idea: Build a general world reconstruction model that reconstructs any scene, static or dynamic, from any
    number of unposed images or videos, by training a very large transformer on all available 3D and video
    data. The model would output time-varying pointmaps and motion fields for every pixel.

    Method: Extend the pointmap transformer with a temporal axis and train on a mixture of static datasets,
    dynamic benchmarks and internet video with pseudo-labels.

    Experiments: Evaluate on the dynamic benchmark and on static datasets.

    Impact: Such a model would be a foundation for robotics, AR and autonomous driving, replacing the many
    specialized reconstruction pipelines used today. It could also serve as a world model for embodied agents
    and enable new applications in film and games. Even partial progress toward this goal would be
    valuable, since dynamic reconstruction is one of the main open problems in 3D vision.
    """,
    b="""
    Problem: Pairwise pointmap methods need global alignment that becomes slow and brittle with many images,
    and confidences used to weight the alignment are poorly calibrated on reflective and textureless surfaces.

    Method: Calibrate the confidence head before alignment. We fit a post-hoc calibration model per surface
    category (detected with an off-the-shelf material segmenter) using held-out scenes with ground-truth
    geometry, and use calibrated confidences as weights in alignment. Pairs whose calibrated confidence falls
    below a threshold are pruned, which reduces the number of pairs to align.

    Experiments: Scenes with 50, 100 and 200 images from two indoor and one outdoor dataset. Metrics: Chamfer
    distance, camera pose error, alignment time and calibration error (ECE) of the confidences before and after
    calibration. Ablate surface-specific versus global calibration and the pruning threshold.

    Expected outcome: Faster, more accurate alignment, especially for scenes with glass and metal surfaces.
    The method needs no retraining of the reconstruction network.
    """,
    labels="BBBAB",
)

# 18  Offline RL: A is the better, more original proposal; B is simpler to run.
idea(
    "Offline Reinforcement Learning from Suboptimal Demonstrations",
    [
        ("Conservative Q-Learning for Offline RL",
         """We learn a lower bound on the value function by penalizing Q-values of actions not in the dataset,
         avoiding overestimation on out-of-distribution actions."""),
        ("Dataset Quality and Offline RL Performance",
         """Offline RL performance depends strongly on the state-action coverage of the dataset; when coverage
         is narrow, behaviour cloning matches or beats offline RL."""),
        ("Return-Conditioned Supervised Learning",
         """Conditioning a policy on desired return and training with supervised learning is competitive on
         benchmarks but fails when good trajectories must be stitched from suboptimal pieces."""),
    ],
    a="""
    Problem: Practitioners must choose between offline RL and behaviour cloning without knowing which suits
    their dataset. Coverage determines the answer, but coverage is not measured before training.

    Method: Define a cheap, pre-training diagnostic of "stitchability": build a graph whose nodes are clustered
    states and whose edges are observed transitions, and compute how much the best return achievable by
    combining trajectory segments in the graph exceeds the best single trajectory's return. High stitchability
    predicts offline RL gains; low stitchability predicts behaviour cloning suffices. The diagnostic requires
    only the dataset and a reward signal.

    Experiments: Compute the diagnostic on 30 benchmark datasets and 20 deliberately subsampled variants with
    controlled coverage. Train conservative Q-learning, return-conditioned supervised learning and behaviour
    cloning on each (five seeds). Test whether the diagnostic predicts the ranking of methods, using rank
    correlation and a simple decision rule evaluated on held-out datasets.

    Expected outcome: A practical decision tool that saves compute, and a clearer account of when offline RL
    is worth its instability.
    """,
    b="""
    Problem: Offline RL methods are sensitive to dataset quality, and practitioners do not know when to use
    them instead of behaviour cloning.

    Method: Run conservative Q-learning, return-conditioned supervised learning and behaviour cloning on a
    broad set of benchmark datasets and summarize which method wins in which setting. Datasets will be grouped
    by their source (random, medium, expert, mixed) to see patterns.

    Experiments: Five seeds per method and dataset, reporting normalized returns with confidence intervals.
    Additional datasets will be generated by mixing expert and random data in different proportions.

    Expected outcome: Practical guidelines for choosing offline RL methods based on dataset source. All
    methods have public implementations, so the study is straightforward to run on a small cluster. We will
    release all training curves and hyperparameters so that others can extend the comparison, and we will add
    two newer methods if time allows. The final report will include a decision table.
    """,
    labels="AABAA",
)

# 19  Accessibility: B is the more valuable and original study; A is a simpler survey.
idea(
    "Screen Reader Navigation of Data Visualizations",
    [
        ("How Blind Users Access Charts on the Web",
         """Interviews with 22 blind screen reader users show that most charts are either skipped or reduced to
         a title and alt text, and that users want to explore data, not just hear a summary."""),
        ("Sonification of Line Charts",
         """Mapping data values to pitch lets listeners identify trends and extrema in line charts with accuracy
         close to sighted readers for simple series, but performance drops with multiple series."""),
        ("Structured Navigation Trees for Accessible Visualization",
         """We represent a chart as a hierarchy (chart, axes, series, data points) navigable with arrow keys and
         show that it supports both overview and detail tasks better than a data table."""),
        ("Automatically Generated Chart Descriptions",
         """Language models can produce chart descriptions that cover basic encodings well but frequently
         misstate trends and omit statistical uncertainty."""),
    ],
    a="""
    Problem: Blind users want to explore charts, but we do not know how widespread current accessibility
    practices are across news and government websites, or which chart types are most often inaccessible.

    Method: Crawl 5,000 pages from 50 news and government sites, identify charts automatically, and classify
    each chart's accessibility support: no alternative, alt text only, data table, or interactive navigation.
    For a random sample of 300 charts with alt text, rate the alt text quality using a rubric adapted from
    prior interview findings.

    Experiments: Report prevalence of each support level by site type and chart type, and the distribution of
    alt-text quality. Follow up with a short survey of 50 screen reader users about which chart types they
    encounter most often.

    Expected outcome: A baseline measurement of chart accessibility on the web that can motivate designers
    and policymakers. The crawl and classification can be done with existing tools, so the project is low risk.
    """,
    b="""
    Problem: Structured navigation trees support exploring a chart, and sonification supports perceiving
    trends, but users must choose one or the other, and both leave users to interpret the data alone.
    Generated descriptions are fluent but sometimes wrong, which is dangerous for users who cannot check them.

    Method: An integrated exploration tool in which the navigation tree is the backbone. At any node (series,
    range, point), users can (1) hear a sonified summary of that subtree, (2) ask a question in natural
    language, answered by a language model that is restricted to computing from the underlying data table
    through generated code, with the code's result read aloud, and (3) step into children. Answers cite the
    node they come from so users can verify them by navigating there.

    Experiments: A study with 16 blind participants and three tasks per chart type (line, bar, scatter):
    find extrema, compare series, describe trend. Conditions: navigation only, navigation plus sonification,
    full tool. Measures: accuracy, time, number of verification steps taken, and trust. A diary study with
    six participants using the tool on real news charts for two weeks captures use in context.

    Design process: Before the study, we will run three co-design sessions with blind screen reader users to
    settle the keyboard commands, the sonification mapping (pitch for value, stereo position for x-axis) and
    how answers announce their source node. The tool will be built as an open-source library that works with
    two common web charting toolkits, so news organizations can adopt it.

    Expected outcome: Better accuracy on comparison tasks and appropriate trust, with a design that keeps
    language-model answers checkable rather than authoritative.
    """,
    labels="BBABB",
)

# 20  Learning theory: A is better overall and more tractable; B is more novel and more concrete.
idea(
    "Benign Overfitting in Two-Layer Neural Networks",
    [
        ("Benign Overfitting in Linear Regression",
         """We characterize when the minimum-norm interpolator of noisy data generalizes well: the covariance
         must have many small eigenvalues that absorb the noise."""),
        ("Benign Overfitting in Two-Layer ReLU Networks Trained by Gradient Descent",
         """For data from a mixture of two well-separated Gaussians, two-layer ReLU networks trained by gradient
         descent on the logistic loss interpolate noisy labels while achieving near-optimal test error."""),
        ("Tempered Overfitting",
         """Many practical interpolating models are neither benign nor catastrophic: test error increases with
         noise but stays bounded, a regime we call tempered."""),
    ],
    a="""
    Problem: Benign overfitting in two-layer networks has been proven for well-separated Gaussian mixtures,
    but the analysis relies on near-orthogonality of training points in high dimension. Practical data sets
    are lower-dimensional relative to sample size, where tempered overfitting is observed instead.

    Goal: Characterize the transition between benign and tempered overfitting for two-layer ReLU networks as
    a function of the ratio between dimension and sample size and the signal strength.

    Approach: Extend the existing gradient descent analysis by replacing the near-orthogonality assumption with
    a bound on the Gram matrix's off-diagonal terms that degrades gracefully. Track how the noise memorized by
    each neuron interferes with the signal component, and show that interference leads to test error growing
    linearly in the noise rate below a threshold ratio.

    Validation: Simulations with synthetic mixtures across a grid of dimension-to-sample ratios to check the
    predicted threshold and slope.

    Significance: A unified picture of when interpolation is harmless would explain why some overparameterized
    models tolerate label noise and others do not, and it would connect the two existing regimes.
    """,
    b="""
    Problem: Existing benign overfitting results for neural networks are tied to specific data models and do not
    say anything about how architecture affects whether overfitting is benign.

    Idea: Study how the width profile of a network, not only its width, decides between benign and tempered
    overfitting. Conjecture: networks whose hidden layer is wide but whose effective rank after training is low
    behave like linear models with a spiked covariance and overfit benignly; networks whose trained features
    spread across many directions overfit in a tempered way.

    Approach: (1) Define the effective rank of the trained first-layer weight matrix as the entropy-based rank
    of its singular values at convergence. (2) Prove, for two-layer networks in the Gaussian mixture model with
    a small initialization, that the effective rank is bounded by a constant and derive benign overfitting
    from this bound, reusing the linear regression conditions on the induced feature covariance. (3) Conjecture
    a converse for large initialization.

    Experiments: Train two-layer and three-layer networks on synthetic mixtures and on CIFAR-10 with 10%, 20%
    and 40% label noise, at initialization scales from 1e-4 to 1, measuring effective rank, training error and
    test error. Test whether effective rank predicts the benign/tempered regime better than width or
    parameter count.

    Relation to prior work: The linear-regression characterization says benign overfitting needs many small
    eigenvalues to absorb noise; our conjecture is that low effective rank in the trained features creates
    exactly this spectrum, with a few large directions carrying the signal and a long tail of small ones
    absorbing memorized noise. The Gaussian-mixture result for two-layer networks would then be a special case
    in which small initialization keeps the rank low.

    Milestones: (i) a proof for the two-layer case with an explicit constant on effective rank, (ii) the
    empirical study, (iii) a counterexample or evidence for the converse conjecture.

    Risk: Step (2) may require restrictive assumptions on initialization that weaken the result. The empirical
    part stands on its own even if the proof does not go through.
    """,
    labels="ABAAB",
)

# 21  Distributed systems: B is better on substance; both are described at the same level of detail.
idea(
    "Consensus Protocols for Geo-Distributed Databases",
    [
        ("Leaderless Consensus for Wide-Area Replication",
         """A leaderless protocol lets any replica commit commands in one round trip to a fast quorum when
         commands do not conflict, reducing latency for clients far from a leader."""),
        ("Conflict Rates in Production Geo-Distributed Workloads",
         """Traces from three geo-distributed services show that fewer than 2% of commands conflict, but
         conflicts cluster in hot keys and time periods."""),
        ("Latency-Aware Leader Placement",
         """Moving the leader to the region with the most client traffic reduces median latency by up to 40% in
         leader-based protocols."""),
    ],
    a="""
    Problem: Leaderless consensus is fast when commands do not conflict, but conflicts cluster in hot keys,
    where the slow path makes latency worse than with a leader.

    Idea: Run a leaderless protocol for the whole keyspace but design a new fast path that predicts conflicts
    using a neural network trained on recent command history; when a conflict is predicted, commands are
    delayed slightly so that they arrive in a consistent order at all replicas, avoiding the slow path.

    Method: Implement the predictor as a small recurrent network at each replica, trained online. Predicted
    conflicts are resolved by timestamp-based delays.

    Experiments: Evaluate with the three production traces in a five-region deployment, measuring median and
    tail commit latency against leaderless and leader-based baselines.

    Risks: The predictor may be inaccurate for bursty traffic, and correctness arguments for delayed
    commands need to be worked out, since replicas could disagree about which commands were delayed. A
    formal proof is left for future work.
    """,
    b="""
    Problem: Leaderless consensus is fast when commands do not conflict, but conflicts cluster in hot keys,
    where the slow path makes latency worse than with a leader.

    Idea: A hybrid protocol that assigns each key range to one of two modes. Cold ranges use the leaderless
    fast path. Hot ranges, detected by conflict counters, switch to a leader placed in the region that issues
    most of their commands, following latency-aware placement. Mode switches use a reconfiguration command
    ordered by the protocol itself, so safety follows from the existing protocols.

    Method: Implement in an existing open-source replication library with per-range mode metadata.

    Experiments: Five-region deployment with the three production traces, measuring median and tail commit
    latency and behaviour during mode switches, against pure leaderless and pure leader-based baselines.

    Risks: Frequent switching for ranges that alternate between hot and cold; we will add hysteresis
    and report how often switches occur in each trace, along with their latency cost.
    """,
    labels="BBBBT",
)

# 22  Speech: A is better overall and more useful; both equally novel; B is easier to carry out.
idea(
    "Speech Recognition for Low-Resource Languages with Self-Supervised Models",
    [
        ("Self-Supervised Speech Representations Across 100 Languages",
         """A model pretrained on unlabelled speech from 100 languages reaches usable word error rates with one
         hour of labelled data in most languages, but errors are much higher for tonal languages."""),
        ("Orthographic Variation in Low-Resource ASR Evaluation",
         """Many low-resource languages lack standardized spelling; word error rate penalizes valid spelling
         variants and overstates errors by up to 30%."""),
        ("Community-Driven Speech Data Collection",
         """Working with community radio stations, we collected 200 hours of speech in eight languages, with
         speakers controlling consent and use of the recordings."""),
    ],
    a="""
    Problem: Self-supervised ASR models perform worst on tonal languages, and word error rate overstates errors
    in languages without standard spelling, so we do not know how bad the tonal gap really is.

    Method: (1) Build evaluation sets for six tonal low-resource languages from community radio recordings,
    with two independent transcriptions per utterance to capture spelling variation. (2) Define a
    variant-aware error rate that accepts any attested spelling. (3) Add an auxiliary tone prediction head
    during fine-tuning, supervised by tone labels that linguists annotate on 30 minutes per language, and
    feed pitch features (F0 contour) alongside the self-supervised representation.

    Experiments: Fine-tune with 1 and 10 hours of labelled data per language; compare standard and
    variant-aware error rates; ablate pitch features and tone head. Error analysis distinguishes tone errors,
    segmental errors and spelling variants.

    Impact: Honest measurement plus a targeted fix for the largest remaining gap; evaluation sets released
    under community-controlled licences.

    Community agreements: Recordings come from partner radio stations under agreements that let speakers
    withdraw recordings and let communities decide whether models trained on them may be released. We will
    hold a review meeting with each station before publishing results.

    Risks: Tone annotation requires scarce linguist time; we budget 30 minutes of audio per language. If
    the tone head does not help, the pitch-feature ablation still tells us whether the representation lacks
    tonal information.
    """,
    b="""
    Problem: Low-resource ASR is limited by the lack of labelled data, which is expensive to collect.

    Method: Use pseudo-labelling: fine-tune the self-supervised model on one hour of labelled data, transcribe
    the 200 hours of community radio speech, filter transcripts by model confidence, and retrain on the
    combined data. Repeat for three iterations.

    Experiments: Measure word error rate on held-out labelled data in the eight languages after each iteration,
    and compare with training on labelled data only. Analyse how the confidence threshold affects the results.

    Impact: Pseudo-labelling is simple and widely used in high-resource ASR, so this would show whether it
    transfers to low-resource settings. The method requires no additional annotation, only compute, and can be
    completed quickly with existing open-source training recipes. We will also examine whether errors in
    the pseudo-labels are concentrated in particular speakers or recording conditions, since community
    radio audio varies widely in quality, and whether filtering by confidence removes those cases or keeps
    them.
    """,
    labels="ATBAA",
)

# 23  Code LLMs: A has the bolder idea; B is the sounder, better-specified study.
idea(
    "Repository-Level Code Generation with Large Language Models",
    [
        ("Repository-Level Code Completion Benchmarks",
         """We build a benchmark requiring cross-file context, and find that models fail mostly because they do
         not retrieve the relevant definitions, not because they cannot use them."""),
        ("Retrieval for Code: Lexical Versus Semantic",
         """For cross-file completion, simple lexical retrieval of identifiers matches or beats embedding-based
         retrieval at a fraction of the cost."""),
        ("Static Analysis Feedback for Code Generation",
         """Feeding type checker and linter errors back to a model reduces compile errors by half in statically
         typed languages."""),
    ],
    a="""
    Problem: Models fail at repository-level tasks because they do not retrieve the right context.

    Idea: Instead of retrieval, let the model explore the repository like a developer: give it tools to open
    files, jump to definitions and search, and train it with reinforcement learning to decide what to read
    before writing code, rewarding successful completions. Over time the model would learn general navigation
    strategies that transfer across repositories and programming languages.

    Experiments: Train on open-source repositories and evaluate on the cross-file benchmark against
    retrieval-based approaches. We will measure success rate and the number of tool calls per task, and
    examine whether the learned strategies resemble how developers navigate, for example jumping to
    definitions before reading tests.

    Impact: A model that navigates code autonomously could handle any repository without custom retrieval
    pipelines, a step toward autonomous software engineering agents. This could also provide insights into
    how human developers navigate code, and navigation traces could be used to train better retrieval systems.
    """,
    b="""
    Problem: Cross-file completion fails mainly at retrieval, and lexical retrieval is competitive with
    embeddings. But both retrieve by similarity to the current file, while the needed definition is often
    determined by types and imports that a static analyser can resolve exactly.

    Method: Static-analysis retrieval. For the completion location, run a language server to resolve the
    types of variables in scope, the imported modules and the enclosing class hierarchy, and retrieve the
    definitions (signatures and docstrings) of exactly those symbols, ranked by proximity in the call graph.
    Fall back to lexical retrieval when the analyser fails (dynamic code). After generation, run the type
    checker and feed errors back once.

    Experiments: Cross-file benchmark in Python, Java and TypeScript. Compare no retrieval, lexical, embedding,
    static-analysis retrieval, and static plus lexical. Metrics: exact match, compile/type-check pass rate,
    and retrieval recall of the gold definition. Break down by whether the analyser succeeded, and measure
    latency overhead of the language server.

    Expected outcome: Largest gains in Java and TypeScript, smaller in Python, where dynamic features limit
    static resolution.
    """,
    labels="BABBB",
)

# 24  Privacy: A is better overall and more novel; equally feasible; B is laid out more concretely.
idea(
    "Differentially Private Fine-Tuning of Language Models",
    [
        ("Differentially Private Fine-Tuning Is Competitive at Scale",
         """With large pretrained models and parameter-efficient fine-tuning, differentially private training
         reaches accuracy within a few points of non-private training at epsilon = 8."""),
        ("Memorization of Rare Sequences in Fine-Tuned Models",
         """Sequences that appear once in the fine-tuning data can be extracted from the model; privacy risk is
         concentrated in rare, unique records."""),
        ("Auditing Differential Privacy with Canaries",
         """Inserting crafted canary records and measuring how well an attacker can detect them gives empirical
         lower bounds on epsilon that are often far below the theoretical bound."""),
    ],
    a="""
    Problem: Private fine-tuning applies the same noise to all records, but risk is concentrated in rare
    records, while common content is also learned from pretraining. Uniform privacy budgets may waste
    utility on records that are not at risk.

    Idea: Use the pretrained model as a public prior to estimate each record's "novelty" relative to public
    knowledge, and allocate per-record privacy budgets accordingly via individualized differential privacy:
    novel records receive stronger protection, familiar records weaker. Budgets must be computed privately,
    so we propose estimating novelty with a private quantile mechanism over bucketed likelihood scores.

    Experiments: Fine-tune on two datasets with rare-record canaries; compare utility and canary exposure
    against uniform DP-SGD at matched worst-case epsilon.

    Risk: Private budget estimation consumes part of the overall budget, which could cancel the gains.

    Significance: If effective, this would give better utility at the same formal guarantee for the records
    that matter, which could make private fine-tuning attractive in domains such as healthcare.
    """,
    b="""
    Problem: Theoretical epsilon bounds for private fine-tuning are loose, and practitioners do not know the
    real risk of their models.

    Method: Apply canary auditing systematically to parameter-efficient private fine-tuning. Insert 1,000
    canaries of three types (random strings, realistic records, near-duplicates of real records) into two
    fine-tuning datasets, train models at epsilon 1, 4 and 8 with LoRA and full fine-tuning, and run
    membership inference and extraction attacks. Convert attack success into empirical epsilon lower bounds
    with confidence intervals.

    Experiments: 2 datasets x 3 epsilons x 2 fine-tuning methods x 3 seeds. Report empirical epsilon per canary
    type and compare with theoretical bounds. Include non-private baselines to show the attack is strong
    enough to detect leakage.

    Expected outcome: Evidence on how loose the bounds are in practice and which canary types come closest to
    worst case, guiding how audits should be done. The full grid is 36 fine-tuning runs of a 1B-parameter
    model with LoRA and 36 with full fine-tuning, which fits in about two weeks on four GPUs. We will release
    the canary sets and attack code so that others can audit their own private models.
    """,
    labels="AATAB",
)

# 25  Recommender systems: B is the more original and important study; A is easy to run.
idea(
    "Popularity Bias in Sequential Recommendation",
    [
        ("Popularity Bias Amplification in Recommender Feedback Loops",
         """Simulations show that retraining recommenders on their own logged interactions amplifies popularity
         bias over time, narrowing the items users see."""),
        ("Calibrated Recommendations",
         """Re-ranking recommendations so that the genre distribution matches a user's history improves
         perceived diversity with a small accuracy cost."""),
        ("Long-Term User Satisfaction and Diversity",
         """In a year-long observational study, users exposed to more diverse recommendations showed higher
         retention, although the effect may be confounded by user type."""),
    ],
    a="""
    Problem: Sequential recommenders recommend popular items too often, which narrows what users see and
    disadvantages new or niche items. Calibrated re-ranking has been studied for genres but not for
    popularity in sequential models.

    Method: Apply calibrated re-ranking to a transformer-based sequential recommender, matching the popularity
    distribution (rather than genre distribution) of recommendations to each user's history.

    Experiments: Three public datasets; measure accuracy (NDCG, recall) and popularity metrics (average
    popularity of recommended items, coverage of long-tail items). Compare with the base model and with a
    simple popularity penalty.

    Expected outcome: Reduced popularity bias with a small drop in accuracy, quantifying the tradeoff for
    sequential models. The method is a post-processing step that can be added to any model, and all datasets
    are public, so the experiments can be completed in a few weeks. We will release code so practitioners can
    apply the re-ranking to their own systems, and report results separately for users with short and long
    histories.
    """,
    b="""
    Problem: Offline evaluations of popularity-bias fixes measure a single step, but the harm comes from feedback
    loops over many retraining cycles, and the long-term benefit to users is only observational and possibly
    confounded.

    Method: A two-part study. (1) A simulation of repeated retraining in which simulated users have
    heterogeneous, drifting preferences estimated from real interaction logs. We compare the base sequential
    recommender, calibrated re-ranking and a popularity penalty over 20 retraining cycles, tracking catalogue
    coverage, user-level preference fit and simulated retention. (2) A randomized experiment with a partner
    streaming platform: 2% of users receive calibrated recommendations for eight weeks, measuring retention,
    consumption diversity and satisfaction surveys.

    Analysis: Compare whether the simulation predicts the direction and size of effects in the live
    experiment, which validates the simulator as a tool for others.

    Expected outcome: Causal evidence on whether reducing popularity bias helps users long-term, and whether
    one-step offline metrics predict it.

    Risks: Platform partnership; if it falls through, we will use a smaller online study with volunteer users.
    """,
    labels="BBABB",
)

# 26  Edge ML: A is better on most dimensions; B has a more novel angle.
idea(
    "On-Device Inference with Quantized Neural Networks",
    [
        ("Post-Training Quantization to 4 Bits",
         """With per-channel scales and rounding optimization, convolutional and transformer models can be
         quantized to 4-bit weights after training with under 1% accuracy loss on most tasks."""),
        ("Energy Measurement on Mobile Accelerators",
         """Reported speedups from quantization often fail to translate into energy savings on mobile neural
         processing units because of data movement and unsupported operators."""),
        ("Operator Support Gaps in Mobile Inference Runtimes",
         """A survey of four mobile runtimes shows that many quantized operators fall back to the CPU, which
         can make quantized models slower than their float counterparts."""),
    ],
    a="""
    Problem: Quantization papers report accuracy and theoretical speedups, but on phones quantized models can be
    slower and use more energy because operators fall back to the CPU. Developers lack a way to predict the
    real benefit before deployment.

    Method: Build a fallback-aware cost model. For each runtime and device, profile every quantized operator
    type and shape class once (latency, energy, and whether it runs on the accelerator), then predict a model's
    end-to-end latency and energy from its graph, including transfer costs at accelerator/CPU boundaries. Use
    the cost model to search for mixed-precision configurations that keep fallback-prone operators in float
    and quantize the rest.

    Experiments: Six models (three vision, three language), four runtimes, three phones. Validate predictions
    against measured energy with an external power monitor; target error under 15%. Compare the searched
    configurations with uniform 8-bit and 4-bit quantization on accuracy, latency and energy.

    Impact: Developers get realistic estimates and configurations that actually save energy on current
    hardware.
    """,
    b="""
    Problem: Quantized models often fall back to the CPU on phones, wasting the benefit of quantization.

    Idea: Co-design the quantization scheme with the runtime instead of adapting models to runtimes: learn
    which operator implementations to add to the runtime by treating runtime development as part of the
    optimization. A search procedure proposes new fused quantized kernels, for example layer normalization
    fused with 4-bit matrix multiplication, and estimates their benefit across a model zoo.

    Experiments: Identify the top candidate kernels for two runtimes and implement the best few by hand,
    measuring speed and energy before and after on several phones.

    Impact: Could guide runtime developers toward the kernels that matter most. Implementing kernels by hand
    is time consuming and depends on vendor toolchains, so the evaluation may be limited to a small number of
    kernels and devices. The search procedure itself will use the operator survey and energy measurements
    from prior work to estimate which missing kernels cause the most fallbacks across popular models.
    """,
    labels="ABAAA",
)

# 27  Both bad: A is at least easy to carry out; neither is novel, significant or specific.
idea(
    "Chain-of-Thought Prompting for Mathematical Reasoning",
    [
        ("Chain-of-Thought Prompting Elicits Reasoning",
         """Providing worked examples with intermediate reasoning steps in the prompt improves language model
         accuracy on arithmetic and word problems."""),
        ("Self-Consistency Improves Chain-of-Thought",
         """Sampling multiple reasoning paths and taking a majority vote over final answers further improves
         accuracy on math benchmarks."""),
        ("Faithfulness of Chain-of-Thought Explanations",
         """Models' stated reasoning often does not reflect the computation that produced the answer; editing
         the chain of thought frequently leaves the answer unchanged."""),
    ],
    a="""
    Problem: Chain-of-thought prompting improves math reasoning, but it is unclear how many examples to use,
    and practitioners often copy settings from papers without checking them.

    Method: Try chain-of-thought prompting with 1, 2, 4 and 8 examples on a math benchmark with two models,
    with and without self-consistency.

    Experiments: Report accuracy for each setting. We will also try asking the model to "think carefully"
    instead of giving examples.

    Expected outcome: We expect more examples to help, with diminishing returns. This can be run in a day with
    API access, and the results will help practitioners choose prompt settings. We will also look at a few
    examples of reasoning to see whether the model makes arithmetic errors. If time permits, we will add a
    third model and a second benchmark, and compare the cost of each configuration in tokens. Results will
    be summarized in a single table with one row per configuration.
    """,
    b="""
    Problem: Chain-of-thought explanations are not faithful, which is a serious problem for AI safety and
    trust.

    Idea: Make chain-of-thought faithful by training models to produce faithful reasoning. We will develop a
    new training method that rewards faithful explanations, leading to models whose reasoning can be trusted.
    This could solve the faithfulness problem and make models more transparent.

    Experiments: Evaluate on math benchmarks and measure faithfulness using existing tests, showing that our
    method improves both accuracy and faithfulness compared to standard chain-of-thought and self-consistency.

    Method: The reward will be based on whether the explanation is faithful, which we will measure using a
    faithfulness classifier. We will collect data for the classifier by asking annotators whether
    explanations are faithful, and then train the model with reinforcement learning.

    Impact: Faithful reasoning would transform how we use language models in high-stakes settings such as
    medicine and law, and would be a major step toward trustworthy AI.
    """,
    labels="XXAXX",
)

# 28  Multimodal: A proposes a more original direction; B is more feasible, important and specific.
idea(
    "Hallucination in Vision-Language Models",
    [
        ("Object Hallucination in Image Captioning Models",
         """Vision-language models frequently mention objects that are not in the image, especially objects that
         commonly co-occur with those present."""),
        ("Language Priors Dominate Visual Evidence in Long Answers",
         """As generated answers get longer, the model's attention to image tokens decreases and hallucination
         rates increase."""),
        ("Contrastive Decoding Against Distorted Images",
         """Contrasting output distributions conditioned on the original and a noised image reduces object
         hallucination without retraining."""),
        ("A Benchmark for Fine-Grained Visual Hallucination",
         """We annotate hallucinated attributes, counts and spatial relations, finding that mitigation methods
         targeting objects do little for these finer errors."""),
    ],
    a="""
    Problem: Vision-language models hallucinate because language priors overwhelm visual evidence.

    Idea: Give the model a "visual working memory": a separate module that stores verified visual facts as the
    answer is generated, which the language model must consult before mentioning an entity. This mirrors how
    humans re-inspect a scene while describing it. The memory would be populated by an object detector and
    updated by re-attending to image regions when the language model mentions new content.

    Experiments: Evaluate on object hallucination and fine-grained hallucination benchmarks against standard
    decoding and contrastive decoding. Measure whether the memory helps with long answers in particular.

    Outlook: The same architecture could extend to video, where the memory would track entities over time,
    and to embodied agents that must describe environments accurately. It could also make model errors
    easier to inspect, since the memory contents can be shown to users. Training the interface between the
    memory and the language model would require new supervision, which we would derive from existing
    grounded captioning data.
    """,
    b="""
    Problem: Mitigation methods such as contrastive decoding reduce object hallucination but barely affect
    attribute, count and spatial errors, and attention to the image decays over long answers. We hypothesize
    that the decay is the common cause and that a decoding-time fix targeted at long answers should reduce
    fine-grained errors too.

    Method: Position-adaptive contrastive decoding. The contrast strength between the original-image and
    noised-image distributions increases with the number of generated tokens, following a schedule fitted on
    a validation set, and is applied only to tokens whose visual attention mass falls below a threshold.
    Noising is made category-specific: to target counts, duplicate or remove object instances; to target
    spatial relations, mirror the image.

    Experiments: Three open vision-language models; the fine-grained benchmark plus an object hallucination
    benchmark; answer lengths bucketed into short, medium and long. Compare greedy decoding, standard
    contrastive decoding, and our variants, reporting hallucination rates per error type and general
    captioning quality to check that fluency is not harmed. Measure the extra inference cost, which should be
    under 2x.

    Ablations: (a) fixed versus position-adaptive contrast strength; (b) applying contrast to all tokens
    versus low-attention tokens only; (c) generic Gaussian noise versus category-specific image edits. A small
    human evaluation of 300 long answers checks that automatic hallucination metrics agree with people.

    Expected outcome: Reduced attribute and count hallucination in long answers without retraining. If the
    attention-decay hypothesis is wrong, the ablations will show it, since gains would then not concentrate
    in late tokens.
    """,
    labels="BABBB",
)

# 29  Algorithms: equally good overall and equally significant; B more novel; A more feasible and concrete.
idea(
    "Learning-Augmented Online Algorithms",
    [
        ("Online Algorithms with Predictions",
         """We augment classical online algorithms with machine-learned predictions and design algorithms whose
         competitive ratio degrades gracefully with prediction error while remaining robust when predictions are bad."""),
        ("Learning-Augmented Caching",
         """Using predicted next-request times, a modified marking algorithm achieves near-optimal cache
         performance with accurate predictions and O(log k) competitiveness otherwise."""),
        ("Predictions with Distribution Shift",
         """Prediction errors in deployed systems are not adversarial but drift over time; we propose measuring
         prediction quality with error metrics that weight recent requests."""),
    ],
    a="""
    Problem: Learning-augmented caching is analysed with a single global prediction error, but in practice
    predictions are good for most requests and bad for a few (for example, one-hit wonders).

    Method: Analyse the modified marking algorithm under a "mostly accurate" error model: a fraction (1 - delta)
    of predictions have error at most epsilon, and the rest are arbitrary. Prove a competitive ratio of the
    form 1 + O(epsilon) + O(delta log k), and show it is tight by constructing matching lower-bound
    sequences. Then evaluate on three public CDN traces with predictions from a gradient-boosted model, measuring
    the empirical delta and epsilon and comparing the predicted and observed hit rates.

    Deliverables: A refined bound, the lower-bound construction, and an empirical check of whether real
    predictors fall into the mostly-accurate regime. If traces show that bad predictions cluster on
    identifiable requests (for example, first accesses), we will add a variant that ignores predictions for
    those requests and analyse it in the same framework. The analysis builds directly on the existing
    marking-algorithm proof, so the main risk is the tightness argument.
    """,
    b="""
    Problem: Learning-augmented algorithms assume predictions come from a fixed predictor, but deployed
    predictors are retrained, and the algorithm's decisions change the data the predictor learns from.

    Idea: Study the closed loop. Model the predictor as an online learner trained on the requests the
    algorithm observes, so prediction quality depends on past algorithmic choices. For caching, evictions
    determine which items' reuse times are observed. Ask whether robust learning-augmented algorithms remain
    robust in this loop or can be driven into self-reinforcing bad predictions, and whether exploration
    (occasionally keeping items to observe their reuse) is needed.

    Approach: Formalize a feedback model, look for lower bounds showing that some feedback loops are
    unavoidable without exploration, and design a simple exploration rule.

    Significance: It would connect learning-augmented algorithms with online learning under partial
    feedback, although it is not yet clear which results are achievable. Beyond caching, the same loop
    arises in scheduling and load balancing, where decisions also shape what the predictor observes.
    """,
    labels="TBATA",
)

# 30  Visualization: A is better and more original; B is more feasible.
idea(
    "Uncertainty Visualization for Non-Expert Audiences",
    [
        ("Hypothetical Outcome Plots",
         """Animating random draws from a distribution helps non-experts judge probabilities more accurately than
         error bars, especially for comparisons between two quantities."""),
        ("Quantile Dotplots for Everyday Decisions",
         """Discrete dot representations of predictive distributions improve decisions in a bus-arrival task
         compared with density plots and text."""),
        ("Deterministic Construal Errors",
         """Viewers often misread uncertainty displays as deterministic, for example interpreting a forecast
         cone as the storm's size."""),
    ],
    a="""
    Problem: Uncertainty visualizations are evaluated with lab tasks that state the decision explicitly, but in
    the wild people first have to realize that a display shows uncertainty at all. Deterministic construal
    errors suggest that many viewers never get that far.

    Method: Study "uncertainty noticing" in realistic, unprompted reading. Participants read a news-style
    article containing one of four displays of a forecast (error bars, quantile dotplot, hypothetical outcome
    plot, cone) without being told the study is about uncertainty. Afterwards they answer free-text and
    multiple-choice questions about what the graphic showed and make a decision based on it. Eye tracking in
    a lab subset (n = 40) measures attention to uncertainty elements.

    Experiments: Online study with 1,200 participants, balanced across displays and two topics (weather,
    election). Primary outcomes: rate of spontaneously mentioning uncertainty, rate of deterministic construal,
    and decision quality. Secondary: whether a one-sentence caption ("each dot is one possible outcome")
    changes noticing.

    Analysis plan: Free-text answers are coded by two coders blind to condition using a preregistered
    codebook (mentions uncertainty / mentions a range or probability / describes a single outcome). Mixed-effects
    logistic regression with display, topic and caption as fixed effects and participant numeracy as a
    covariate. We power the study to detect a 7-point difference in noticing rates between any two displays.

    Expected outcome: Evidence on which displays are noticed as uncertain without prompting, which matters
    more for public communication than accuracy under instruction. We expect animated displays to be noticed
    more often but also to be skipped by readers who scroll quickly, a tradeoff that lab studies cannot reveal.
    """,
    b="""
    Problem: It is unclear which uncertainty visualization works best for non-experts, because studies use
    different tasks.

    Method: Replicate the bus-arrival task from the quantile dotplot study with four displays: error bars,
    quantile dotplots, hypothetical outcome plots, and density plots. Participants make repeated decisions
    about when to leave for the bus and receive simulated payoffs.

    Experiments: Online study with 400 participants, between-subjects. Measure decision quality relative to
    the optimal strategy, and confidence.

    Expected outcome: A direct comparison of four common displays on one decision task, with materials that
    can be reused by other researchers. The task and stimuli are available from prior work, so setup is quick.
    We will preregister the hypotheses and analysis plan, use attention checks to exclude inattentive
    participants, and report results separately for participants with and without statistical training, since
    prior studies suggest that numeracy moderates how people read uncertainty displays. Numeracy will be
    measured with a short standard scale.
    """,
    labels="AABAA",
)

# 31  Manipulation: B is the better idea; A easier to run; neither proposal is specific enough.
idea(
    "Learning Dexterous Manipulation from Human Videos",
    [
        ("Retargeting Human Hand Motion to Robot Hands",
         """We map 3D human hand poses estimated from video to a multi-fingered robot hand via optimization over
         fingertip positions, enabling imitation from internet videos."""),
        ("Object-Centric Representations for Manipulation",
         """Policies that operate on object poses and contact points rather than pixels transfer better across
         embodiments."""),
        ("Contact-Rich Manipulation in Simulation",
         """Simulating contact for in-hand manipulation remains inaccurate for soft and articulated objects,
         limiting sim-to-real transfer."""),
    ],
    a="""
    Problem: Robots need more data for dexterous manipulation.

    Method: Collect human videos of manipulation tasks, retarget the hand motions to a robot hand, and train
    a policy with behaviour cloning on the retargeted trajectories. We will use existing pose estimation and
    retargeting tools.

    Experiments: Test the policy on several manipulation tasks with a robot hand and compare with a policy
    trained on teleoperated demonstrations.

    Expected outcome: Human videos provide a cheap source of data that can improve dexterous manipulation.
    The approach uses existing tools, so it should be possible to implement quickly, and more videos can be
    added over time to improve the policy. We will choose tasks that are common in household settings and
    select videos where the hand is clearly visible. Depending on the results, we may also try combining
    human videos with a small number of teleoperated demonstrations, and we will analyse which tasks
    benefit most from the additional data.
    """,
    b="""
    Problem: Retargeted human hand motions do not transfer well because human and robot hands differ, but what
    matters for the task is how the object moves, not how the fingers move.

    Idea: Learn from human videos at the level of objects and contacts instead of hand poses. Extract object
    trajectories and contact regions from videos and train a policy that reproduces them with whatever finger
    motions the robot hand can achieve, filling in the embodiment-specific details with reinforcement learning
    in simulation.

    Experiments: Evaluate on manipulation tasks and compare with retargeting-based imitation.

    Impact: Decoupling object outcomes from hand motions could let any robot hand learn from the vast supply of
    human videos, a major step toward general-purpose dexterity. The approach could also be applied to other
    embodiments such as grippers and bimanual systems, and object-centric representations may make the
    learned skills easier to compose into longer tasks. We plan to explore these directions in follow-up work.
    """,
    labels="BBABX",
)

# 32  Software engineering: A is better and more original; B is easier and more precisely specified.
idea(
    "Flaky Tests in Continuous Integration",
    [
        ("An Empirical Study of Flaky Tests",
         """Analysing 200 flaky tests from open-source projects, we find that asynchronous waits, concurrency and
         test order dependency account for most flakiness."""),
        ("Rerun-Based Flakiness Detection Is Expensive",
         """Detecting flaky tests by rerunning them requires many reruns for rare flakiness; at large companies
         this consumes a significant fraction of CI compute."""),
        ("Predicting Flaky Tests from Code Features",
         """Classifiers using test code vocabulary identify flaky tests with high precision within a project but
         transfer poorly to other projects."""),
    ],
    a="""
    Problem: Flaky test detection by rerunning is expensive, and vocabulary-based classifiers transfer poorly
    because they learn project-specific words rather than causes of flakiness.

    Idea: Detect flakiness from causes. Instrument test executions to record a few cheap runtime signals tied
    to the known root causes: wall-clock waits and timeouts, thread interleavings touching shared state, and
    reads of state written by earlier tests. A classifier over these signals should transfer across projects
    because the causes are general.

    Experiments: 20 open-source projects with known flaky tests; leave-one-project-out evaluation against
    vocabulary classifiers and rerun budgets. Measure instrumentation overhead.

    Significance: Cause-based signals would also tell developers why a test is flaky, which rerunning cannot.
    A developer who learns that a test reads state left by an earlier test knows where to look; a flakiness
    score alone does not help with fixing. If overhead is too high for every run, the instrumentation can be
    sampled on a fraction of CI runs.
    """,
    b="""
    Problem: Rerunning tests to find flakiness consumes large amounts of CI compute, and most reruns are
    wasted on tests that are not flaky.

    Method: Prioritize reruns with the vocabulary-based classifier. Tests with predicted flakiness
    probability above 0.3 receive 10 reruns; others receive 1. We will tune the threshold and rerun counts to
    minimize compute subject to detecting 90% of flaky tests found by exhaustive rerunning (100 reruns per
    test).

    Experiments: Use 20 open-source projects with existing flaky test datasets. Train the classifier
    within each project using the first 70% of history and evaluate on the remaining 30%. Report compute
    savings (total reruns), recall of flaky tests, and sensitivity to the threshold from 0.1 to 0.5. Include a
    random prioritization baseline with the same budget.

    Expected outcome: Large compute savings at a small loss in recall, using only existing tools and data.
    We will also report how quickly the classifier must be retrained as the test suite evolves, by comparing
    monthly retraining with a single model trained once.
    """,
    labels="AABAB",
)

# 33  Interpretability: B is better overall; equally feasible; A spells out more detail.
idea(
    "Sparse Autoencoders for Language Model Interpretability",
    [
        ("Sparse Autoencoders Find Interpretable Features",
         """Training sparse autoencoders on language model activations yields features that human raters judge
         more interpretable than individual neurons."""),
        ("Feature Splitting Across Dictionary Sizes",
         """As the dictionary size grows, features split into finer variants, raising the question of which
         granularity is the right one."""),
        ("Do SAE Features Matter for Model Behaviour?",
         """Ablating sparse autoencoder features often has smaller effects on model outputs than expected from
         their activation patterns, suggesting reconstruction error hides important computation."""),
    ],
    a="""
    Problem: Sparse autoencoder features are judged interpretable, but the best dictionary size is unclear
    because features split as size grows.

    Method: Train sparse autoencoders at seven dictionary sizes (from 4k to 256k features) on the residual
    stream of layers 6, 12 and 18 of a 1B-parameter model. For each size, sample 200 features and collect
    interpretability ratings from three raters using the standard protocol of top-activating examples. Compute
    reconstruction loss, L0 sparsity and the fraction of dead features.

    Experiments: Plot interpretability, reconstruction and sparsity against dictionary size per layer, and
    identify a knee point. Trace feature splitting by matching features across sizes with decoder cosine
    similarity above 0.7.

    Expected outcome: A recommended dictionary size per layer for this model, and a dataset of rated features.
    Compute: each autoencoder trains on 500M tokens of activations, roughly 21 runs in total, feasible on
    four GPUs within two weeks. Rater agreement will be reported with Krippendorff's alpha, and features
    rated uninterpretable will be kept in the dataset to avoid selection effects.
    """,
    b="""
    Problem: Interpretability ratings reward features that look meaningful, but ablation studies suggest the
    features do not carry much of the computation. Choosing dictionary size by interpretability may optimize
    the wrong target.

    Method: Choose dictionary sizes by a functional criterion: how much of the model's behaviour on specific
    tasks is explained by a small set of features. For several tasks with known circuits (for example,
    indirect object identification), find the minimal feature set whose activation patching recovers task
    performance, across dictionary sizes and layers. Compare with interpretability ratings.

    Experiments: Report whether sizes that look most interpretable also give the most compact functional
    explanations, and how much of task behaviour is lost in reconstruction error.

    Impact: Could redirect evaluation of interpretability methods from appearance to function. If the
    functional criterion and interpretability ratings agree, that would also be reassuring for the many
    studies that rely on ratings. All code and feature sets will be released.
    """,
    labels="BBTBA",
)

# 34  Federated learning: A is better in most respects; B's angle is fresher.
idea(
    "Federated Learning with Heterogeneous Clients",
    [
        ("Client Drift in Federated Averaging",
         """With non-identically distributed client data, local updates drift toward client optima, slowing
         convergence; control variates correct the drift."""),
        ("Partial Participation and Client Availability",
         """In cross-device deployments, client availability correlates with time of day and device type,
         biasing the clients that contribute updates."""),
        ("Fairness Across Clients in Federated Learning",
         """The global model can perform poorly for minority clients; reweighting by client loss improves the
         worst-case client accuracy."""),
    ],
    a="""
    Problem: Federated learning analyses assume clients participate uniformly at random, but availability
    correlates with time of day and device type, so some populations (for example, older phones that charge
    overnight in particular regions) are systematically over- or under-represented. This bias compounds with
    client drift.

    Method: Availability-aware aggregation. Estimate each client group's participation probability from
    check-in logs, and weight updates by inverse participation probability, with clipping to control variance.
    Combine with control variates for drift. Provide a convergence bound showing that the bias term vanishes
    under correct propensities.

    Experiments: Simulate cross-device training with availability traces derived from a public mobile usage
    dataset, on two benchmarks (next-word prediction, image classification) partitioned by client groups.
    Report global accuracy, per-group accuracy and worst-group accuracy against standard averaging, drift
    correction alone, and loss-based fairness reweighting.

    Details: Client groups are defined by device class and time zone (24 groups). Propensities are estimated
    with a logistic model on hour of day and device class, refreshed every 50 rounds; weights are capped
    at 10. We run 2,000 rounds with 100 clients per round and five seeds, and add an experiment with deliberately
    misestimated propensities (off by a factor of two for half the groups) to test robustness.

    Expected outcome: Better worst-group accuracy without the instability of loss-based reweighting, and a
    diagnostic showing when availability bias is large enough to matter.
    """,
    b="""
    Problem: Fairness reweighting improves worst-case client accuracy but treats clients as fixed, ignoring that
    clients join and leave.

    Idea: Model federated learning as a population game in which clients decide whether to participate based
    on how well the global model serves them. Poorly served clients drop out, making the model even worse for
    them. Study the equilibria of this process and design an aggregation rule that keeps participation stable.

    Approach: Formalize the dynamics, analyse stability of equilibria for a simple linear model, and
    simulate participation dynamics on a benchmark.

    Impact: Could explain long-term exclusion effects in deployed federated systems, a perspective missing from
    work that studies a single training run. The equilibrium analysis may show that small changes to
    aggregation weights prevent collapse of participation for minority groups, which would be a simple,
    practical recommendation. Extending the analysis beyond linear models will likely require simulation
    rather than proofs, which we will treat as a second phase.
    """,
    labels="ABAAA",
)

# 35  Continual learning: B is better overall; A more novel; both equally specific.
idea(
    "Continual Pretraining of Language Models on New Domains",
    [
        ("Forgetting in Continual Pretraining",
         """Continued pretraining on a new domain improves in-domain perplexity but degrades general benchmarks;
         replaying a small fraction of original data mitigates forgetting."""),
        ("Learning Rate Rewarming and Stability",
         """Re-increasing the learning rate when continual pretraining starts causes a temporary loss spike
         whose size predicts the final amount of forgetting."""),
        ("Data Mixtures for Domain Adaptation",
         """The optimal proportion of domain data in the training mixture depends on model size and on how
         distant the domain is from the original data."""),
    ],
    a="""
    Problem: Continual pretraining causes forgetting, and replay is the standard fix, but it requires access to
    the original pretraining data, which many users do not have.

    Idea: Replace replay with self-generated data. Before continual pretraining, sample a synthetic corpus
    from the original model itself and mix it in as pseudo-replay. The generated text reflects what the model
    knows, so training on it should anchor general capabilities without the original data.

    Experiments: Continual pretraining of a 1B model on code and on biomedical text with 0%, 5% and 25%
    pseudo-replay versus real replay. Measure in-domain perplexity and general benchmark scores.

    Risks: Generated text may be low in diversity and could reinforce the model's own errors. We will sample
    with several temperatures and prompt styles to increase diversity, and check whether the pseudo-replay
    corpus covers the same topics as public pretraining data using a topic classifier. Generation cost is
    modest: 1B tokens of pseudo-replay takes about a day.
    """,
    b="""
    Problem: Rewarming the learning rate causes a loss spike that predicts forgetting, but practitioners still
    choose rewarming schedules by trial and error for each domain.

    Method: Measure how the spike depends on the peak learning rate, warmup length and domain distance, and fit
    a simple predictive model of final forgetting from the first few hundred steps.

    Experiments: Continual pretraining of a 1B model on code and on biomedical text at three peak learning
    rates and two warmup lengths, with and without 5% replay. Measure spike size, in-domain perplexity and
    general benchmark scores.

    Expected outcome: Early stopping rules for bad schedules, saving compute for teams adapting models to new
    domains. We will validate the predictive model on a third domain, legal text, that is not used for
    fitting, and report how early in training the prediction becomes reliable. Each run uses 10B tokens, so
    the full grid of 24 runs is affordable for an academic lab.
    """,
    labels="BABBT",
)

# 36  Quantum: similar merit and novelty; neither is feasible on available hardware; B is more specific.
idea(
    "Quantum Advantage for Machine Learning Kernels",
    [
        ("Quantum Kernel Methods",
         """Quantum circuits can define kernels that are hard to compute classically; for specially constructed
         data, quantum kernel classifiers provably outperform classical ones."""),
        ("Exponential Concentration of Quantum Kernels",
         """As the number of qubits grows, values of many quantum kernels concentrate around a constant,
         requiring exponentially many measurements to distinguish data points."""),
        ("Error Mitigation on Near-Term Devices",
         """Zero-noise extrapolation and probabilistic error cancellation reduce errors on current devices at
         the cost of sampling overhead that grows exponentially with circuit depth."""),
    ],
    a="""
    Problem: Quantum kernel methods have proven advantages only for artificial data, and kernel concentration
    limits their scalability.

    Idea: Design quantum kernels for real scientific data such as molecular properties, where quantum
    structure in the data might give a natural advantage. Use problem-inspired circuits that encode molecular
    Hamiltonians, which should avoid concentration.

    Experiments: Run quantum kernel classifiers with 100 qubits and deep circuits on molecular datasets on
    available quantum hardware, comparing with classical kernels and graph neural networks.

    Impact: Demonstrating quantum advantage on real data would be a milestone for quantum machine learning
    and could open applications in drug discovery and materials science. The project would also produce
    software for building problem-inspired circuits that others could use. As hardware improves, the same
    kernels could be applied to larger molecules and to other scientific domains such as condensed matter.
    We expect the first results within a year, depending on hardware access, and will publish negative
    results if no advantage is found.
    """,
    b="""
    Problem: Kernel concentration makes quantum kernels useless at scale unless circuits are carefully
    designed, and it is unknown whether any useful kernel avoids concentration while staying classically hard.

    Method: Study projected quantum kernels, which measure local reduced density matrices instead of full-state
    overlaps. (1) Derive the variance of projected kernel values for circuits of depth L on n qubits
    with local observables, identifying a regime in which variance decays only polynomially. (2) Within that
    regime, test classical simulability using tensor network contraction. (3) Run on hardware: 200 qubits,
    depth 60 circuits, 10,000 data points, with probabilistic error cancellation to remove noise.

    Experiments: Compare hardware kernel classifiers with classical kernels on a physics dataset of phases of
    matter, measuring accuracy and the number of shots needed.

    Impact: Either a kernel that is both trainable and hard to simulate, or evidence that these requirements
    conflict. Both outcomes would sharpen the debate about where quantum kernels could ever be useful.
    """,
    labels="TTXTB",
)

# ---------------------------------------------------------------------------
# Assembly
# ---------------------------------------------------------------------------

# Strongest first, with a Bradley-Terry style strength per name. The (fictional)
# human votes favour stronger models more often than not, so a rating model fitted
# to the demo data recovers this order. SCI_SEED and IDEA_SEED are the first seeds
# (searched upwards from 0) for which the empirical win rates of these small
# samples follow the same order (for SCI_SEED, also with the longer and the
# more-cited response shown as A in 23 to 25 of the 48 rows).
SCI_MODELS = ("o3", "claude-3.7-sonnet", "gpt-4.1", "deepseek-r1", "qwen3-32b", "llama-4-maverick")
IDEA_SYSTEMS = ("gpt-5.1", "claude-4.5-sonnet", "gemini-3-pro", "kimi-k2", "research-agent-x", "ai-scientist-v2")
STRENGTHS = (1.2, 0.8, 0.4, 0.0, -0.5, -1.0)

SCI_KEYS = (
    "id", "question", "responseA", "responseB", "modelA", "modelB", "vote",
    "citation_a", "citation_b", "question_type", "subject",
)
IDEA_KEYS = (
    "comparison_id", "seed_paper", "references", "proposal_a", "proposal_b", "system_a", "system_b",
) + DIMENSIONS

_CITATION = re.compile(r"^[A-Z][A-Za-z'\-]+(?: et al\.| and [A-Z][A-Za-z'\-]+)? \d{4}[a-z]?$")


def in_text_citations(text: str) -> list[str]:
    """Every parenthetical citation, in order, e.g. "(Smith et al. 2023a; Chen 2021)" -> two entries."""
    found: list[str] = []
    for group in re.findall(r"\(([^()]*)\)", text):
        parts = [p.strip() for p in group.split(";")]
        if all(_CITATION.match(p) for p in parts):
            found.extend(parts)
        else:
            assert not re.search(r"\b\d{4}[a-z]?\b", group), f"unparsed citation-like text: ({group})"
    return found


def citation_list(text: str, refs: dict[str, str]) -> list[dict[str, str]]:
    seen: dict[str, None] = {}
    for c in in_text_citations(text):
        assert c in refs, f"no title for {c!r}"
        seen.setdefault(c, None)
    return [{"concise_authors": c, "title": refs[c]} for c in seen]


def pick_pair(rng: random.Random, pool: tuple[str, ...]) -> tuple[str, str]:
    """Two distinct names from the pool as (preferred, other): the preferred one is
    the name attached to the response the human chose, drawn with probability
    sigmoid(strength difference)."""
    i, j = rng.sample(range(len(pool)), 2)
    p_i = 1.0 / (1.0 + math.exp(STRENGTHS[j] - STRENGTHS[i]))
    return (pool[i], pool[j]) if rng.random() < p_i else (pool[j], pool[i])


def build_sci(rng: random.Random) -> list[dict]:
    rows: list[dict] = []
    for subject in SUBJECTS:
        group = [r for r in SCI if r["subject"] == subject]
        assert len(group) % 2 == 0, subject
        # Half the votes A, half B. Alternating along an order sorted by "did the
        # longer / more-cited response win" also keeps the longer and the more-cited
        # response roughly evenly split between the A and B positions.
        keyed = [
            (
                len(r["win"]) > len(r["lose"]),
                len(set(in_text_citations(r["win"]))) > len(set(in_text_citations(r["lose"]))),
                rng.random(),
                k,
            )
            for k, r in enumerate(group)
        ]
        first = rng.choice("AB")
        second = "B" if first == "A" else "A"
        votes = {k: (first, second)[n % 2] for n, (*_, k) in enumerate(sorted(keyed))}
        for k, r in enumerate(group):
            vote = votes[k]
            assert r["question_type"] in QUESTION_TYPES, r["question_type"]
            used = set(in_text_citations(r["win"])) | set(in_text_citations(r["lose"]))
            assert used == set(r["refs"]), f"unused or missing refs in: {r['question'][:60]}"
            win_model, lose_model = pick_pair(rng, SCI_MODELS)
            if vote == "A":
                (ra, ma), (rb, mb) = (r["win"], win_model), (r["lose"], lose_model)
            else:
                (ra, ma), (rb, mb) = (r["lose"], lose_model), (r["win"], win_model)
            rows.append(
                {
                    "question": r["question"],
                    "responseA": ra,
                    "responseB": rb,
                    "modelA": ma,
                    "modelB": mb,
                    "vote": vote,
                    "citation_a": citation_list(ra, r["refs"]),
                    "citation_b": citation_list(rb, r["refs"]),
                    "question_type": r["question_type"],
                    "subject": subject,
                }
            )
    rng.shuffle(rows)  # interleave subjects
    return [{"id": f"demo-sci-{i:03d}", **row} for i, row in enumerate(rows, 1)]


def build_idea(rng: random.Random) -> list[dict]:
    rows: list[dict] = []
    for i, r in enumerate(IDEA, 1):
        preferred, other = pick_pair(rng, IDEA_SYSTEMS)
        overall = r["labels"]["overall_quality"]
        if overall == "B" or (overall not in ("A", "B") and rng.random() < 0.5):
            sa, sb = other, preferred
        else:
            sa, sb = preferred, other
        rows.append(
            {
                "comparison_id": f"demo-idea-{i:03d}",
                "seed_paper": r["seed_paper"],
                "references": r["references"],
                "proposal_a": r["a"],
                "proposal_b": r["b"],
                "system_a": sa,
                "system_b": sb,
                **r["labels"],
            }
        )
    return rows


def write_jsonl(path: Path, rows: list[dict], keys: tuple[str, ...]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            assert tuple(row) == keys, sorted(set(row) ^ set(keys))
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


SCI_SEED = 12
IDEA_SEED = 30


def main() -> None:
    sci_rows = build_sci(random.Random(SCI_SEED))
    idea_rows = build_idea(random.Random(IDEA_SEED))
    write_jsonl(OUT_DIR / "sciarena_eval_demo.jsonl", sci_rows, SCI_KEYS)
    write_jsonl(OUT_DIR / "ideation_arena_eval_demo.jsonl", idea_rows, IDEA_KEYS)
    print(f"wrote {len(sci_rows)} SciArena-style rows and {len(idea_rows)} Ideation-Arena-style rows to {OUT_DIR}")


if __name__ == "__main__":
    main()
