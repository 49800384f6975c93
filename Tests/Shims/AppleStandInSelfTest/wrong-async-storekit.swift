// Must NOT compile: Transaction.finish() is async.
// control: ; t.finish() => ; await t.finish()
import StoreKit
func f(_ t: StoreKit.Transaction) async { _ = t.productID; t.finish() }
