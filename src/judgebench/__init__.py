"""judgebench: meta-evaluation of LLM-as-judge against human pairwise preferences."""

__version__ = "0.1.0"
