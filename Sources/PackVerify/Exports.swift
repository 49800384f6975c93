// An app that imports PackVerify sees the trust layer's types (VerificationFailure and its codes, SignedDocument,
// RootChain, the policies) without a second import.
@_exported import PackTrust
