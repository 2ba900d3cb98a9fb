package svc

// Version is the version of this SDK. It is sent in the User-Agent header of
// every request as "svc-sdk-go/<Version>".
const Version = "1.0.0"
