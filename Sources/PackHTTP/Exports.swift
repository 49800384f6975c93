/// ResponseHead, HTTPError and ChunkedDecoder live in PackNet (shared with the publisher); an app importing PackHTTP
/// keeps seeing them.
@_exported import PackNet
