import Foundation
import Testing
import TetherTesting

/// Key names no key can have, given to `tether`: refused by the library's one check, saying
/// why, with nothing written anywhere.
@Suite struct KeyNameTests {
  /// A name with a space once reached the INI editor's precondition (SIGILL, exit 132) when
  /// there was no file, and wrote the line `a b = 1` (or ` = 1` for "") when there was one.
  @Test func aNameOutsideTheGrammarIsRefusedWithoutACrashAndTheFileIsUntouched() async throws {
    try await withTemporaryDirectory { folder in
      let defaults = folder.appending(path: "defaults.ini")
      let config = try write(
        "[keys]\n* = defaults\n[strategy.defaults]\nfile = \(defaults.path)\n", in: folder)
      let first = try await tether(["set", "--config", config, "a b", "1"])
      #expect(first.status == 1, "\(first.errors)")
      #expect(first.errors.contains(#"invalid key name "a b": it contains " ""#))
      #expect(!FileManager.default.fileExists(atPath: defaults.path))

      let fine = try await tether(["set", "--config", config, "ok", "1"])
      #expect(fine.status == 0, "\(fine.errors)")
      for name in ["a b", ""] {
        let refused = try await tether(["set", "--config", config, name, "2"])
        #expect(refused.status == 1, "\(refused.errors)")
        #expect(refused.errors.contains("invalid key name \(String(reflecting: name))"))
      }
      #expect(try String(contentsOf: defaults, encoding: .utf8) == "ok = 1\n")
    }
  }

  /// A name holding a line break and a section header added a real `[ui]` section; control
  /// characters made a file `a\x01b.json`; a 5,000-byte name failed with a raw ENAMETOOLONG.
  @Test func aNameCannotAddLinesToAFileOrMakeAFileOfItsOwn() async throws {
    try await withTemporaryDirectory { folder in
      let defaults = folder.appending(path: "defaults.ini")
      let data = folder.appending(path: "data")
      let config = try write(
        """
        [keys]
        demo.* = defaults
        * = file
        [strategy.defaults]
        file = \(defaults.path)
        [strategy.file]
        directory = \(data.path)

        """, in: folder)
      let fine = try await tether(["set", "--config", config, "demo.keep", "1"])
      #expect(fine.status == 0, "\(fine.errors)")
      let injected = try await tether(
        ["set", "--config", config, "demo.x = 1\n[ui]\ntheme", "dark"])
      #expect(injected.status == 1)
      #expect(injected.errors.contains(#"it contains the control character "\n""#))
      #expect(try String(contentsOf: defaults, encoding: .utf8) == "[demo]\nkeep = 1\n")

      let control = try await tether(["set", "--config", config, "a\u{01}b", #"{"a":1}"#])
      #expect(control.status == 1)
      #expect(control.errors.contains(#"invalid key name "a\u{01}b""#))
      let long = try await tether(
        ["set", "--config", config, String(repeating: "x", count: 5000), "1"])
      #expect(long.status == 1)
      #expect(long.errors.contains("it is 5000 bytes long; a key name has at most 200"))
      #expect(!long.errors.contains("errno"))
      #expect(!FileManager.default.fileExists(atPath: data.path), "no file was made")
    }
  }

  /// `../../escaped` wrote `escaped.json` two folders above the strategy's directory.
  @Test func aNameCannotLeadOutOfTheStrategysDirectory() async throws {
    try await withTemporaryDirectory { folder in
      let data = folder.appending(path: "a/b/data")
      let config = try write(
        "[keys]\n* = file\n[strategy.file]\ndirectory = \(data.path)\n", in: folder)
      for name in ["../../escaped", "sub/escaped", "..", "/tmp/escaped"] {
        let result = try await tether(["set", "--config", config, name, #"{"a":1}"#])
        #expect(result.status == 1, "\(name): \(result.errors)")
        #expect(result.errors.contains("invalid key name \(String(reflecting: name))"))
        let got = try await tether(["get", "--config", config, name])
        #expect(got.status == 1)
      }
      let left = try FileManager.default.subpathsOfDirectory(atPath: folder.path)
      #expect(left == ["tether.conf"])
    }
  }

  /// Each once printed an `NSCocoaErrorDomain` dump; a FIFO must not block the tool either.
  @Test func aPathThatIsNotAReadableFileIsNamedWithWhatIsWrong() async throws {
    try await withTemporaryDirectory { folder in
      let fifo = folder.appending(path: "fifo").path
      #expect(mkfifo(fifo, 0o600) == 0)
      let config = try write("[keys]\n* = file\n[strategy.file]\ndirectory = data\n", in: folder)
      let cases: [([String], String)] = [
        (
          ["--config", config, "x", "--file", "/missing"],
          "/missing: cannot read the value (--file): there is no such file"
        ),
        (
          ["--config", config, "x", "--file", fifo],
          "\(fifo): cannot read the value (--file): it is a FIFO (named pipe), not a regular file"
        ),
        (
          ["--config", fifo, "x", "1"],
          "\(fifo): cannot read the config file: it is a FIFO (named pipe), not a regular file"
        ),
        (
          ["--config", folder.path, "x", "1"],
          "\(folder.path): cannot read the config file: it is a folder, not a file"
        ),
      ]
      for (arguments, message) in cases {
        let result = try await tether(["set"] + arguments)
        #expect(result.status == 1)
        #expect(result.errors == message + "\n")
      }
    }
  }

  private func write(_ config: String, in folder: URL) throws -> String {
    let url = folder.appending(path: "tether.conf")
    try Data(config.utf8).write(to: url)
    return url.path
  }
}
