"""scripts/portability-check.sh, fed offending and clean sample files: it names file:line for each Linux-only symbol
outside `#if os(Linux)`, follows `#if`/`#elseif`/`#else`/`#endif` nesting, and passes the client modules as they are."""
import importlib.util
import os
import subprocess
import tempfile
import textwrap
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "portability-check.sh")
spec = importlib.util.spec_from_file_location("portability_check", os.path.join(REPO, "scripts", "portability_check.py"))
portability_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(portability_check)


class PortabilityCheck(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="portability-")

    def check(self, source, name="Durability.swift"):
        """Findings for `source` written as `name`: by default the Durability seam, the one file where the Linux
        guards of flush calls (fdatasync) matter rather than the calls themselves."""
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(source))
        run = subprocess.run([SCRIPT, path], capture_output=True, text=True)
        findings = [line for line in run.stdout.splitlines() if line.startswith(path)]
        return run.returncode, [line[len(path) + 1:] for line in findings]

    def test_the_client_modules_as_they_are_pass(self):
        run = subprocess.run([SCRIPT], capture_output=True, text=True, cwd=REPO)
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("no Linux-only symbol", run.stdout)
        self.assertIn("no client module depends on signing", run.stdout)
        self.assertIn("other files macOS builds too", run.stdout)

    def test_a_client_module_reaching_signing_or_openssl_off_linux_is_named_with_the_path(self):
        def target(name, *deps):
            return {"name": name, "dependencies": list(deps)}
        by_name = lambda n: {"byName": [n, None]}
        package = {"targets": [
            target("COpenSSL"), target("CTLS"),
            target("PackCrypto", {"target": ["COpenSSL", {"platformNames": ["linux"]}]}),
            target("PackSigning", by_name("COpenSSL"), by_name("PackCrypto")),
            target("PackModel", by_name("PackCrypto")),
            target("PackTrust", by_name("PackModel"), by_name("PackSigning")),
            target("PackVerify", by_name("PackTrust"), {"target": ["CTLS", {"platformNames": ["linux", "macos"]}]}),
        ]}
        findings = portability_check.manifest_findings(package)
        self.assertIn("Package.swift: PackTrust depends on PackSigning (the signing half) through PackTrust -> PackSigning", findings)
        self.assertIn("Package.swift: PackTrust depends on COpenSSL (OpenSSL's libcrypto) through PackTrust -> PackSigning -> COpenSSL", findings)
        self.assertIn("Package.swift: PackVerify depends on CTLS (OpenSSL's libssl) through PackVerify -> CTLS on linux, macos", findings)
        self.assertFalse([f for f in findings if f.startswith("Package.swift: PackCrypto") or f.startswith("Package.swift: PackModel")], findings)

    def test_every_listed_symbol_outside_a_guard_is_named_with_its_line(self):
        code, findings = self.check("""\
            let a = info.st_mtim
            let b = info.st_ctim.tv_sec
            _ = fdatasync(fd)
            _ = sync_file_range(fd, 0, 0, 0)
            _ = syncfs(fd)
            clock_gettime(CLOCK_BOOTTIME, &t)
            send(fd, p, n, Int32(MSG_NOSIGNAL))
            socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC), 0)
            open(dir, O_TMPFILE | O_RDWR)
            statx(0, path, 0, 0, &x)
            renameat2(a, b, c, d, 0)
            posix_fadvise(fd, 0, 0, 0)
            let status = "/proc/self/status"
            import COpenSSL
            import CTLS
            """)
        self.assertEqual(code, 1)
        # Line 8 holds two: SOCK_STREAM.rawValue (a Glibc enum) and SOCK_CLOEXEC.
        self.assertEqual([f.split(":")[0] for f in findings], [str(n) for n in range(1, 9)] + ["8"] + [str(n) for n in range(9, 16)], findings)
        self.assertIn("1: st_mtim outside #if os(Linux)", findings)
        self.assertIn("13: /proc/ outside #if os(Linux)", findings)
        self.assertIn("14: import COpenSSL outside #if os(Linux)", findings)

    def test_a_flush_outside_the_durability_seam_is_named_even_inside_a_linux_block(self):
        code, findings = self.check("""\
            _ = fsync(fd)
            #if os(Linux)
            guard fdatasync(fd) == 0 else { return }
            #else
            _ = fcntl(fd, F_FULLFSYNC)
            #endif
            // fsync in a comment is fine
            guard Durability.system.flushFile(fd, path: p) else { return }
            """, name="URLSessionFetcher.swift")
        self.assertEqual(code, 1)
        self.assertEqual(findings, [
            "1: fsync outside the Durability seam (use Durability.flushFile/flushFolder/barrier)",
            "3: fdatasync outside the Durability seam (use Durability.flushFile/flushFolder/barrier)",
            "5: F_FULLFSYNC outside the Durability seam (use Durability.flushFile/flushFolder/barrier)",
        ])

    def test_the_same_flushes_in_the_seam_pass(self):
        code, findings = self.check("""\
            #if os(Linux)
            guard fdatasync(fd) == 0 else { return false }
            #else
            guard fsync(fd) == 0 else { return false }
            guard fcntl(fd, F_FULLFSYNC) == 0 else { return false }
            #endif
            """)
        self.assertEqual((code, findings), (0, []))

    def test_other_files_are_held_to_the_linux_symbols_only(self):
        path = os.path.join(self.dir, "Connection.swift")
        with open(path, "w") as f:
            f.write(textwrap.dedent("""\
                import COpenSSL
                #if canImport(Glibc)
                import Glibc
                #endif
                _ = fsync(fd)
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                sigtimedwait(&set, nil, &zero)
                #if os(Linux)
                let stream = Int32(SOCK_STREAM.rawValue)
                #endif
                """))
        findings = [f[len(path) + 1:] for f in portability_check.check_file(path, client=False)]
        self.assertEqual(findings, ["6: SOCK_*.rawValue outside #if os(Linux)", "7: sigtimedwait outside #if os(Linux)"])

    def other(self, source, name="Other.swift"):
        """Findings for `source` as a file of a module that is not a client one (the tool, the publisher, tests)."""
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(source))
        return [f[len(path) + 1:] for f in portability_check.check_file(path, client=False)]

    def test_the_three_shapes_that_broke_the_mac_build_are_found_in_any_module(self):
        """Issue 30: packtool did not build on macOS while this check passed — a libc call in a file importing only
        Glibc (InstallProgressDisplay.swift), `environ` (PreviewCommand.swift) and tv_usec from an Int
        (Connection.swift). Each is now a finding in every module macOS compiles, not only the client's."""
        self.assertEqual(self.other("""\
            #if canImport(Glibc)
            import Glibc
            #endif
            import PackVerify
            let terminal = isatty(2) == 1
            """), ["5: isatty() needs the C library on Apple platforms too: import Darwin (beside Glibc) or Foundation"])
        self.assertEqual(self.other("""\
            import Foundation
            guard posix_spawnp(&pid, opener, nil, nil, argv, environ) == 0 else { return }
            """), ["2: environ outside #if os(Linux)"])
        self.assertEqual(self.other("""\
            import Foundation
            var t = timeval(tv_sec: 1, tv_usec: Int(micro))
            """), ["2: tv_usec is Int32 on Darwin and Int on Linux: pass suseconds_t(…)"])

    def test_the_fixed_shapes_pass(self):
        self.assertEqual(self.other("""\
            #if canImport(Glibc)
            import Glibc
            #elseif canImport(Darwin)
            import Darwin
            #endif
            let terminal = isatty(2) == 1
            #if os(Linux)
            let environment = environ
            #else
            let environment = _NSGetEnviron().pointee
            #endif
            var t = timeval(tv_sec: 1, tv_usec: suseconds_t(micro))
            """), [])
        self.assertEqual(self.other("""\
            #if canImport(FoundationEssentials)
            import FoundationEssentials
            #else
            import Foundation
            #endif
            let t = isatty(1)
            """), [], "Foundation brings the C library on Apple platforms")

    def test_struct_fields_of_other_widths_on_darwin_need_their_own_c_types(self):
        self.assertEqual(self.other("""\
            import Foundation
            address.sin_family = UInt16(AF_INET)
            address.sin_family = sa_family_t(AF_INET)
            if a.sin_family == b.sin_family {}
            device = UInt64(info.st_dev)
            device = UInt64(truncatingIfNeeded: info.st_dev)
            """), ["2: sa_family_t is UInt8 on Darwin and UInt16 on Linux: assign sa_family_t(…)",
                   "5: dev_t is Int32 on Darwin and UInt64 on Linux: convert with truncatingIfNeeded: (a plain conversion traps on a negative Int32)"])

    def test_libc_names_in_strings_and_methods_are_not_calls(self):
        self.assertEqual(self.other("""\
            let why = "cannot getenv (no permission)"
            func fstat(_ x: Int) {}
            let n = file.pread(at: 0)
            """), [])

    def test_the_whole_package_is_scanned_but_not_the_linux_only_stand_in(self):
        folders = [os.path.relpath(f, REPO) for f in portability_check.other_folders()]
        self.assertIn("Sources/PackHTTP", folders)
        self.assertIn("Sources/packtool", folders)
        self.assertIn("Tests/PackVerifyTests", folders)
        self.assertNotIn("Tests/Shims", folders)
        self.assertNotIn("Sources/PackVerify", folders, "client modules are checked with every rule")

    def test_symbols_inside_linux_blocks_even_nested_pass(self):
        code, findings = self.check("""\
            #if os(Linux)
            let a = info.st_mtim
            #if DEBUG
            _ = fdatasync(fd)
            #endif
            #elseif canImport(Darwin)
            let a = info.st_mtimespec
            #endif
            #if canImport(Glibc)
            import COpenSSL
            #endif
            """)
        self.assertEqual((code, findings), (0, []))

    def test_a_symbol_in_the_else_of_a_linux_block_is_not_guarded(self):
        code, findings = self.check("""\
            #if os(Linux)
            let a = 1
            #else
            let b = info.st_ctim
            #endif
            #if os(macOS)
            let c = info.st_mtimespec
            #else
            let d = info.st_mtim
            #endif
            #if canImport(Darwin)
            let e = info.st_mtimespec
            #else
            let f = info.st_mtim
            #endif
            """)
        self.assertEqual(code, 1)
        self.assertEqual(findings, ["4: st_ctim outside #if os(Linux)", "9: st_mtim outside #if os(Linux)"],
                         "the #else of os(macOS) may be iOS; the #else of canImport(Darwin) is the client's Linux branch")

    def test_the_else_of_a_negated_linux_block_is_guarded_and_its_if_is_not(self):
        code, findings = self.check("""\
            #if !os(Linux)
            _ = fdatasync(fd)
            #else
            _ = syncfs(fd)
            #endif
            """)
        self.assertEqual(findings, ["2: fdatasync outside #if os(Linux)"])

    def test_import_glibc_needs_a_darwin_branch(self):
        code, findings = self.check("""\
            #if canImport(Glibc)
            import Glibc
            #endif
            import Glibc
            #if canImport(Glibc)
            import Glibc
            #elseif canImport(Darwin)
            import Darwin
            #endif
            """)
        self.assertEqual(code, 1)
        self.assertEqual(findings, ["2: import Glibc without a #elseif canImport(Darwin) branch",
                                    "4: import Glibc without a #elseif canImport(Darwin) branch"])

    def test_comments_are_ignored_and_strings_are_not(self):
        code, findings = self.check("""\
            // fdatasync is what Linux runs today; st_mtim is Linux's name
            /* a block comment naming /proc/ and
               statx */
            let url = "http://example.com/proc/x" // syncfs
            """)
        self.assertEqual(findings, ["4: /proc/ outside #if os(Linux)"])

    def test_darwin_names_that_extend_linux_ones_are_not_mistaken_for_them(self):
        code, findings = self.check("""\
            let a = info.st_mtimespec
            let b = info.st_ctimespec
            let c = my_statx_wrapper
            """)
        self.assertEqual((code, findings), (0, []))

    def test_the_openssl_backend_under_not_cryptokit_is_linux_only(self):
        code, findings = self.check("""\
            #if !PACKTOOL_CRYPTOKIT
            import COpenSSL
            #endif
            #if PACKTOOL_CRYPTOKIT
            import CryptoKit
            #else
            import COpenSSL
            #endif
            #if !(PACKTOOL_CRYPTOKIT || os(macOS) || os(iOS))
            import COpenSSL
            #endif
            #if PACKTOOL_CRYPTOKIT || os(macOS) || os(iOS)
            import CryptoKit
            #else
            import COpenSSL
            #endif
            """)
        self.assertEqual((code, findings), (0, []))
        code, findings = self.check("""\
            #if os(macOS) || os(iOS)
            import CryptoKit
            #else
            import COpenSSL
            #endif
            """)
        self.assertEqual(findings, ["4: import COpenSSL outside #if os(Linux)"], "without the define the #else may be any system")


if __name__ == "__main__":
    unittest.main()
