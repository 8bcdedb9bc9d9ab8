"""Task kinds beyond pairwise preference, each behind the same protocol (plan -> assemble -> score -> board rows -> verify)."""
