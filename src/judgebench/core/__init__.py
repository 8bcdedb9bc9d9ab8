"""The ground floor: records and their formats, errors, files and the run directory, secrets, background work, the metric catalogue and the verdict parser. Imports nothing else of judgebench."""
