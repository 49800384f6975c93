#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// A folder written whole or not at all: its files go into a hidden temporary sibling, renamed to the folder's name
/// last (`renameat`, which never replaces a folder that has anything in it), so a failure leaves nothing behind and
/// nothing that exists is written into.
struct NewFolder {
    /// Relative paths (with `/`) and their bytes.
    var files: [(path: String, data: Data)]

    /// Writes the folder as `name` in `parent`; `shown` names it in messages.
    func write(as name: String, in parent: RootedFolder, shown: String) throws {
        let temporary = ".\(name).new-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        do {
            try parent.makeFolder(temporary)
            for file in files { try parent.writeAtomically(file.data, to: temporary + "/" + file.path, creatingFolders: true) }
            try parent.rename(temporary, to: name)
        } catch {
            parent.removeTree(temporary)
            throw CommandLineError.io("\(shown): cannot write it (\(error)); nothing was written")
        }
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
