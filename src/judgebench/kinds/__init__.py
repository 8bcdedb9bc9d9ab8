"""Task kinds behind one protocol (plan -> assemble -> score -> board rows -> verify) and one registry.

base      the TaskKind protocol, Plan, TaskEntry
registry  kind name -> TaskKind; every task of every kind (`judgebench tasks`); a task name -> its kind
pairwise  the pairwise kind: an adapter over tasks, judging, scoring and publish (the code stays there)
rubric    the rubric kind: its own package (rubric/kind.py is its TaskKind)

docs/design/task-kinds.md: how to add a kind (one module, registered with registry.register).
"""
