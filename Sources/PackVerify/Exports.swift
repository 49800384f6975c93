// An app that imports PackVerify sees the trust layer's types (VerificationFailure and its codes, SignedDocument,
// RootChain, the policies) without a second import.
@_exported import PackTrust
// …and the download contract (Fetcher, FileFetcher, DownloadPolicy, DownloadDeadline, PackVerifyVersion), which
// lives in PackFetch so the transports (PackHTTP, PackURLSession) need not import the verifier.
@_exported import PackFetch
