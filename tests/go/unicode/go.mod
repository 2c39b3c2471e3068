module xprender.dev/oracle/unicode

go 1.25
