
!projects/demo/databases/(default)vp7projects/demo/databases/(default)/documents/users/alice5projects/demo/databases/(default)/documents/users/bob(0