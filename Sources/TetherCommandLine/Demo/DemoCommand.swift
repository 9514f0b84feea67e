import ArgumentParser
import Foundation
import Observation
import Tether
import TetherLocking

/// `tether demo`: a counter and favourite facts, kept by the strategies the config chooses, and
/// live to edits made elsewhere.
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "The counter-and-favourite-facts demo; commands: + - fact save list delete N quit.")

  @OptionGroup var options: ConfigOptions

  func run() async throws {
    do {
      try TetherSystem.bootstrap(
        configuration: options.configuration(), strategies: ToolSetup.current.strategies)
    } catch let error as ExitCode {
      throw error
    } catch {
      throw fail("\(error)")
    }
    TetherSystem.flushOnTermination()
    let session = DemoSession()
    try await session.run(lines: InputLines.standardInput())
    await TetherSystem.flush()
  }
}

/// The demo's state and commands.
final class DemoSession: Sendable {
  let count = Shared(.count)
  let favorites = Shared(.favoriteFacts)
  let greeting = SharedReader(.greeting)
  private let fact = UnfairMutex<Fact?>(nil)
  /// This session's own changes not yet seen on the change streams, in order: a value that is
  /// not next in line came from outside.
  private let own = UnfairMutex<(counts: [Int], favorites: [[Fact]])>(([], []))

  func run(lines: InputLines) async throws {
    // The watchers of outside changes start first, and the greeting waits until each has
    // taken the value it starts from: a change made once the greeting is out (as the CLI tests
    // make one) is shown, never taken for that value.
    let (ready, watcherReady) = AsyncStream<Void>.makeStream()
    let watching = Task { await watchOutside(ready: watcherReady) }
    defer { watching.cancel() }
    for await _ in ready.prefix(Self.outsideWatchers) {}
    say("\(greeting.wrappedValue)")
    say("count: \(count.wrappedValue) · favourites: \(favorites.wrappedValue.count)")
    say("commands: + - fact save list delete N quit")
    for error in [count.loadError, favorites.loadError].compactMap({ $0 }) {
      say("note: \(error)")
    }
    for await line in lines.prompted(by: "> ") {
      guard handle(line.trimmingCharacters(in: .whitespaces)) else { break }
    }
  }

  /// Runs one command; `false` to quit.
  func handle(_ command: String) -> Bool {
    switch command {
    case "+", "-":
      // Noted inside withLock, before the change reaches the outside-change watcher.
      let value = count.withLock { value in
        value += command == "+" ? 1 : -1
        own.withLock { [value] in $0.counts.append(value) }
        return value
      }
      say("count: \(value)")
    case "fact":
      let made = Fact(
        number: count.wrappedValue, text: FactGenerator.fact(about: count.wrappedValue))
      fact.withLock { $0 = made }
      say(made.text)
    case "save":
      guard let made = fact.withLock({ $0 }) else {
        say("no fact yet: type fact first")
        return true
      }
      let saved = favorites.withLock { favorites in
        favorites.append(made)
        own.withLock { [favorites] in $0.favorites.append(favorites) }
        return favorites
      }
      say("saved; \(saved.count) favourite\(saved.count == 1 ? "" : "s")")
    case "list":
      let all = favorites.wrappedValue
      if all.isEmpty { say("no favourites yet") }
      for (index, fact) in all.enumerated() { say("\(index + 1). \(fact.text)") }
    case let delete where delete.hasPrefix("delete"):
      let number = Int(delete.dropFirst("delete".count).trimmingCharacters(in: .whitespaces))
      let remaining = favorites.withLock { favorites -> [Fact]? in
        guard let number, favorites.indices.contains(number - 1) else { return nil }
        favorites.remove(at: number - 1)
        own.withLock { [favorites] in $0.favorites.append(favorites) }
        return favorites
      }
      guard let remaining else {
        say("delete N: N is a favourite's number in list")
        return true
      }
      say("deleted; \(remaining.count) left")
    case "quit", "q", "exit":
      return false
    case "":
      break
    default:
      say("commands: + - fact save list delete N quit")
    }
    return true
  }

  /// How many watchers ``watchOutside(ready:)`` runs.
  private static let outsideWatchers = 3

  /// Prints changes made outside this session: another terminal's `tether set`, an editor.
  /// Each watcher yields to `ready` once it has taken the value it starts from.
  private func watchOutside(ready: AsyncStream<Void>.Continuation) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        var changes = self.count.changes.makeAsyncIterator()
        _ = await changes.next(isolation: nil)  // the current value
        ready.yield()
        while let value = await changes.next(isolation: nil) {
          guard !self.isOwn(value, in: \.counts) else { continue }
          self.say("↻ count changed outside: \(value)")
        }
      }
      group.addTask {
        var changes = self.favorites.changes.makeAsyncIterator()
        _ = await changes.next(isolation: nil)
        ready.yield()
        while let value = await changes.next(isolation: nil) {
          guard !self.isOwn(value, in: \.favorites) else { continue }
          // An edit that cannot be decoded leaves the default and a load error, which the task
          // below shows: the default is not what the file holds.
          guard self.favorites.loadError == nil else { continue }
          self.say("↻ favourites changed outside: \(value.count) now")
        }
      }
      group.addTask { await self.watchFavoritesLoadError(ready: ready) }
    }
  }

  /// Shows each new load error of the favourites: an edit of the file that cannot be decoded
  /// does not change the value (it may already be the default), so `changes` cannot tell it.
  ///
  /// Through `Observations`, reading the error with ``settledLoadError()``.
  private func watchFavoritesLoadError(ready: AsyncStream<Void>.Continuation) async {
    // The error at startup is shown as a note.
    var shown = favorites.loadError.map { "\($0)" }
    var watching = false
    for await text in Observations({ self.settledLoadError() }) {
      if let text, text != shown { say("↻ favourites could not be loaded: \(text)") }
      shown = text
      if !watching {
        watching = true
        ready.yield()
      }
    }
  }

  /// The favourites' load error in words, read once the change under way is done. Observation
  /// tells of a change before it is made, and `Observations` reads again at once on another
  /// thread: a bare read there can find the old error, and the new one is then never told. A
  /// load sets the error holding the lock `withLock` takes, so reading inside it waits for that.
  private func settledLoadError() -> String? {
    favorites.withLock { _ in favorites.loadError.map { "\($0)" } }
  }

  /// Whether `value` is this session's next own change (which it then consumes).
  private func isOwn<Value: Equatable>(
    _ value: Value, in queue: WritableKeyPath<(counts: [Int], favorites: [[Fact]]), [Value]>
  ) -> Bool {
    own.withLock { own in
      guard own[keyPath: queue].first == value else { return false }
      own[keyPath: queue].removeFirst()
      return true
    }
  }

  private func say(_ line: String) {
    Output.write(line + "\n")
  }
}
