#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackModel
import PackPublish

/// `packtool upload TREE s3://BUCKET/PREFIX --dry-run`: what upload would do (`TreeUploader.plan`), one line per
/// object in upload order, then a summary — the wording of `route import --dry-run` ("would …", "nothing …") and
/// `lint --fix --dry-run` (a closing "COMMAND --dry-run: …" line). The store is read, never written.
extension UploadCommand {
    /// Prints the plan (text, or one JSON object); a refusal upload would meet ends it and exits as upload would — 1
    /// for a refusal (other bytes under a versioned name, a bucket index newer than the tree's, the tree's floor), 2
    /// for the tree or the store — with the cause on standard error, as upload names it.
    static func dryRun(tree: URL, to location: S3Location, settings: ObjectStoreSettings, arguments a: Arguments, quiet: Bool, json: Bool) throws -> Int32 {
        let plan: TreeUploader.Plan
        do { plan = try ObjectStoreFlags.uploader(location, settings: settings, a).plan(tree: tree) } catch let e as PublishError { throw refusal(e) }
        if json {
            try report(plan, tree: tree, location: location).print()
        } else {
            var text = quiet ? "" : "would upload to \(location) (--dry-run, nothing sent):\n" + plan.objects.map { "  " + line($0, plan) + "\n" }.joined()
            text += "upload --dry-run: \(location): "
            if let refused = plan.objects.last, plan.refusal != nil {
                text += "refused at \(refused.path), after \(plan.count(.put)) to put (\(megabytes(plan.bytesToSend))) and \(plan.count(.replace)) to replace"
            } else {
                text += "\(plan.count(.put)) to put (\(megabytes(plan.bytesToSend))), \(plan.count(.replace)) to replace, \(plan.count(.unchanged)) unchanged"
            }
            Output.out(text + "; nothing was sent\n")
        }
        if let e = plan.refusal { throw refusal(e) }
        return 0
    }

    /// A refusal as upload reports it, with the dry run's ending.
    private static func refusal(_ e: PublishError) -> CommandLineError {
        switch e {
        case .contentMismatch, .trust: return .failure("\(e); --dry-run: nothing was sent")
        default: return .io("\(e); --dry-run: nothing was sent")
        }
    }

    /// `put       packs/royal-mile/1/royal-mile-1.tar (5289984 bytes in 1 part)`: the action, padded to one column.
    private static func line(_ object: TreeUploader.PlannedObject, _ plan: TreeUploader.Plan) -> String {
        let action = object.action.rawValue
        var text = action + String(repeating: " ", count: max(1, 11 - action.count)) + object.path
        var notes: [String] = []
        if object.bytes > 0 { notes.append("\(object.bytes) bytes" + (object.parts > 0 ? " in \(object.parts) part\(object.parts == 1 ? "" : "s")" : "")) }
        if object.path == PublishLayout.index, object.action != .refuse, let ours = plan.indexVersion {
            switch object.action {
            case .put: notes.append("version \(ours); the bucket has none")
            case .replace: notes.append("version \(ours) over version \(plan.bucketIndexVersion.map(String.init) ?? "?")")
            default: notes.append("version \(ours)")
            }
        }
        if !notes.isEmpty { text += " (" + notes.joined(separator: "; ") + ")" }
        return text
    }

    /// `--dry-run --format json`: the plan as one object.
    private static func report(_ plan: TreeUploader.Plan, tree: URL, location: S3Location) -> JSONValue {
        let objects: [JSONValue] = plan.objects.map { o in
            ["path": .string(o.path), "action": .string(o.action.rawValue), "bytes": .int(Int(o.bytes)), "parts": .int(o.parts)]
        }
        let refused: JSONValue = plan.refusal.map { e in ["path": .optional(plan.objects.last?.path), "reason": .string("\(e)")] } ?? .null
        return ["dryRun": true, "ok": .bool(plan.refusal == nil), "tree": .string(ShownPath.of(tree)), "bucket": .string(location.bucket),
                "prefix": .string(location.key), "objects": .array(objects), "put": .int(plan.count(.put)), "replace": .int(plan.count(.replace)),
                "unchanged": .int(plan.count(.unchanged)), "bytesToSend": .int(Int(plan.bytesToSend)), "refused": refused,
                "indexVersion": plan.indexVersion.map { .int($0) } ?? .null, "bucketIndexVersion": plan.bucketIndexVersion.map { .int($0) } ?? .null]
    }

    /// Bytes as upload's summary gives them: megabytes to one decimal.
    static func megabytes(_ bytes: UInt64) -> String {
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }
}
