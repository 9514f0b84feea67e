import Foundation
import Testing
import Tether
import TetherPostgres
import TetherTesting

/// A `[strategy.postgres]` section that cannot work is an error at its line, at startup.
struct PostgresSettingsTests {
  private func error(_ section: String) -> String {
    do {
      _ = try PostgresSettings(options: options(section))
      return "no error"
    } catch {
      return "\(error)"
    }
  }

  private func options(_ section: String) -> StrategyOptions {
    var entries: [(name: String, value: String, line: Int)] = []
    for (index, line) in section.split(separator: "\n").enumerated() {
      let parts = line.split(separator: "=", maxSplits: 1).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      entries.append((parts[0], parts[1], index + 1))
    }
    return StrategyOptions(entries: entries, origin: "tether.conf")
  }

  @Test func aMalformedURLIsAnErrorAtItsLine() {
    #expect(error("url = http://x/y").hasPrefix("tether.conf:1: option \"url\""))
    #expect(error("url = postgres://").contains("names no host"))
    #expect(error("url = postgres://db.internal/app").contains("names no user"))
    #expect(error("url = postgres://app@db:99999/app").contains("not between 1 and 65535"))
    #expect(error("table = x").contains("\"url\": is required"))
  }

  @Test func aPasswordInTheURLIsRefusedAndNotRepeated() {
    let message = error("url = postgres://app:hunter2@db/app")
    #expect(message.contains("password-file"))
    #expect(!message.contains("hunter2"))
  }

  @Test func aPasswordFileOthersCanReadIsRefused() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "password")
      try Data("secret\n".utf8).write(to: file)
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
      let message = error("url = postgres://app@db/app\npassword-file = \(file.path)")
      #expect(message.hasPrefix("tether.conf:2: option \"password-file\""), "\(message)")
      #expect(message.contains("mode 644") && message.contains("chmod 600"), "\(message)")
      #expect(!message.contains("secret"))
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
      #expect(error("url = postgres://app@db/app\npassword-file = \(file.path)") == "no error")
    }
  }

  @Test func tlsTableAndChannelAreChecked() {
    #expect(
      error("url = postgres://app@db/app\ntls = maybe").contains("disable, prefer or require"))
    #expect(error("url = postgres://app@db/app\ntable = Values; DROP").contains("plain SQL name"))
    #expect(error("url = postgres://app@db/app\nchannel = 9lives").contains("plain SQL name"))
  }

  @Test func theDefaultsAndTheDescriptionLeaveThePasswordOut() throws {
    let settings = try PostgresSettings(options: options("url = postgres://app@db.internal/app"))
    #expect(settings.port == 5432 && settings.database == "app" && settings.user == "app")
    #expect(settings.table == "tether_values" && settings.channel == "tether_values")
    #expect(settings.throttle == .milliseconds(100) && settings.tls == .disable)
    #expect(settings.description == "postgres://app@db.internal:5432/app table tether_values")
  }
}
