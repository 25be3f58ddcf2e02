print("hearth-bench: not yet written")
