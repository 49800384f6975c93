// Must NOT compile: VerificationResult's payloadValue throws.
// control: -> UInt64 { r.payloadValue.id } => throws -> UInt64 { try r.payloadValue.id }
import StoreKit
func f(_ r: VerificationResult<StoreKit.Transaction>) -> UInt64 { r.payloadValue.id }
