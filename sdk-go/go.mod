module github.com/adsnap/svc/sdk-go

go 1.26
