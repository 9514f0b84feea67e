import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// A user's line that does not parse gives way to the next layer that does — the registration
/// file's line, then the key's default — and `loadError` names the key, the file and the line.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsFallbackTests {
  /// A value of the wrong type and a broken quote, each over a registered value.
  @Test func aBadUserLineShowsTheRegisteredValueWithItsError() async throws {
    try await withTemporaryDirectory { folder in
      let (file, registration) = try files(
        in: folder, user: "# mine\nvolume = loud\ntheme = \"dark\n",
        registration: "volume = 11\ntheme = light\n")
      let store = DefaultsStore(file: file, registration: registration)
      @Shared(.defaults("volume", store: store)) var volume = 1
      @Shared(.defaults("theme", store: store)) var theme = "system"
      let values = [String(volume), theme]
      #expect(values == ["11", "light"])
      expectError($volume.loadError, "\(file.path):2: key \"volume\": expected a whole number")
      expectError($theme.loadError, "\(file.path):3: key \"theme\": unterminated quoted string")
      // An explicit load throws the error, and the holder keeps what stands in.
      await #expect(throws: TetherError.self) { try await $volume.load() }
      #expect(volume == 11 && $volume.loadError != nil)
      #expect(contents(file) == "# mine\nvolume = loud\ntheme = \"dark\n", "the lines are kept")
    }
  }

  /// Edits reach the holder as they happen: a line broken shows the registered value with the
  /// error, and mended shows its own value with no error.
  @Test func anEditThatBreaksTheLineShowsTheRegisteredValue() async throws {
    try await withTemporaryDirectory { folder in
      let (file, registration) = try files(
        in: folder, user: "volume = 5\n", registration: "volume = 11\n")
      @Shared(.defaults("volume", store: DefaultsStore(file: file, registration: registration)))
      var volume = 1
      #expect(volume == 5)
      try edit(file, "volume", "loud")
      await expectEventually(timeout: .seconds(30)) { volume == 11 && $volume.loadError != nil }
      expectError($volume.loadError, "\(file.path):1: key \"volume\": expected a whole number")
      try edit(file, "volume", "7")
      await expectEventually(timeout: .seconds(30)) { volume == 7 && $volume.loadError == nil }
    }
  }

  /// With no registered value that parses, the default; the error is the user's line's. With
  /// no user line, a registered line that does not parse is the error.
  @Test func withNoRegisteredValueThatParsesTheDefault() async throws {
    try await withTemporaryDirectory { folder in
      let (file, registration) = try files(
        in: folder, user: "a = loud\nb = loud\n", registration: "b = quiet\nc = quiet\n")
      let store = DefaultsStore(file: file, registration: registration)
      @Shared(.defaults("a", store: store)) var a = 1
      @Shared(.defaults("b", store: store)) var b = 2
      @Shared(.defaults("c", store: store)) var c = 3
      let values = [a, b, c]
      #expect(values == [1, 2, 3])
      expectError($a.loadError, "\(file.path):1: key \"a\": expected a whole number")
      expectError($b.loadError, "\(file.path):2: key \"b\": expected a whole number")
      expectError($c.loadError, "\(registration.path):2: key \"c\": expected a whole number")
    }
  }

  private func files(
    in folder: URL, user: String, registration: String
  ) throws -> (URL, URL) {
    let file = folder.appending(path: "defaults.ini")
    let registered = folder.appending(path: "registered.ini")
    try Data(user.utf8).write(to: file)
    try Data(registration.utf8).write(to: registered)
    return (file, registered)
  }

  private func expectError(
    _ error: (any Error)?, _ prefix: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let description = (error as? TetherError)?.description ?? String(describing: error)
    #expect(description.hasPrefix(prefix), "\(description)", sourceLocation: sourceLocation)
  }
}
