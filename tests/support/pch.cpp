// The object the tests' precompiled header is made with (tests/CMakeLists.txt, ISOLATION_PCH).
