
7projects/demo/databases/(default)/documents/users/alice
a