module xprender.dev/oracle/transform

go 1.22
