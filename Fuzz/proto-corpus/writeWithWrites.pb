
!projects/demo/databases/(default)s175projects/demo/databases/(default)/documents/users/bob"tok