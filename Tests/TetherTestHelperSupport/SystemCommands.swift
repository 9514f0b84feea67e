import Foundation
import Synchronization

/// A command the test fixtures could not run, or that failed: what ran and what it printed on
/// standard error.
package struct FixtureError: Error, CustomStringConvertible {
  /// What went wrong, with the command and its standard error.
  package let description: String

  /// An error described by `description`.
  package init(_ description: String) { self.description = description }
}

/// Helpers the PostgreSQL and network fixtures share: finding system binaries, quoting for
/// `/bin/sh` (for `system`, which runs commands where no task can be awaited: probes in static
/// properties, exit hooks), random names.
enum SystemCommands {
  /// The first of `paths` that is an executable file.
  static func firstExecutable(_ paths: [String]) -> String? {
    paths.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// iproute2's `ip`, where Debian and others put it.
  static let ip = firstExecutable(["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"])

  /// util-linux's `runuser`, which runs a command as another user without asking a password
  /// (root only).
  static let runuser = firstExecutable(["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"])

  /// Whether this process runs as root.
  static var isRoot: Bool { geteuid() == 0 }

  /// `text` quoted as one word for `/bin/sh`.
  static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }

  /// Six random hexadecimal digits, to make names no other test or run uses.
  static func randomTag() -> String {
    String(UInt32.random(in: 0..<0x100_0000), radix: 16).leftPadded(to: 6)
  }
}

extension String {
  /// This string with zeros before it up to `length` characters.
  fileprivate func leftPadded(to length: Int) -> String {
    String(repeating: "0", count: max(0, length - count)) + self
  }
}

/// Shell commands to run when this process exits, by key, for whatever a test started and has
/// not cleaned up (a server still running, a namespace not deleted): a test that forgot, or
/// failed before its cleanup, must not leave them behind after `swift test`.
enum ExitCleanup {
  /// The commands still pending, by key.
  private static let pending = Mutex<[String: String]>([:])

  /// Registers the `atexit` hook once, the first time anything is added.
  private static let hook: Void = {
    atexit {
      // At exit no task can be awaited, and Foundation's Process may be half torn down: the
      // C library's `system` runs each command.
      let commands = ExitCleanup.pending.withLock { pending in
        defer { pending.removeAll() }
        return Array(pending.values)
      }
      for command in commands { _ = system(command) }
    }
  }()

  /// Runs `command` (a `/bin/sh` command line) at exit unless `remove(key)` is called first.
  static func add(_ key: String, _ command: String) {
    hook
    pending.withLock { $0[key] = command }
  }

  /// Forgets the command under `key`; the caller cleaned up itself.
  static func remove(_ key: String) {
    _ = pending.withLock { $0.removeValue(forKey: key) }
  }

  /// Runs the command under `key` now, on this thread, and forgets it: for a cleanup that
  /// cannot wait for a task (a deinitializer).
  static func runNow(_ key: String) {
    guard let command = pending.withLock({ $0.removeValue(forKey: key) }) else { return }
    _ = system(command)
  }
}
