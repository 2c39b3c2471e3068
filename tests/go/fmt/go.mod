module xprender.test/fmtoracle

go 1.21
