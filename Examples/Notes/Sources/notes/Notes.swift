import EnvDir
import Foundation
import Tether
import TetherCommandLine
import TetherDefaults
import TetherFileStorage

/// `notes`: keeps notes, counts its launches, shows a message of the day, and has a settings
/// command for all three.
@main
struct Notes {
  /// The strategies the config may name: two of Tether's and the app's own.
  static let strategies: [any PersistenceStrategy.Type] = [
    DefaultsStrategy.self, FileStorageStrategy.self, EnvDirStrategy.self,
  ]

  static let usage = """
    usage: notes [--config PATH] [COMMAND]

      notes               the message of the day, the launch count and the notes
      notes add TEXT      adds a note
      notes list          lists the notes, numbered
      notes remove N      removes note N
      notes settings ...  checks the config; lists, gets, sets, resets, describes, watches,
                          exports and imports the settings (notes settings --help)

    The config: --config PATH, else $TETHER_CONFIG, else ./Config/tether.conf, else
    $XDG_CONFIG_HOME/notes/tether.conf.
    """

  static func main() async {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var config: String?
    if arguments.first == "--config" {
      guard arguments.count > 1 else { usageError("--config needs a PATH") }
      config = arguments[1]
      arguments.removeFirst(2)
    }
    if arguments.first == "settings" {
      await settings(Array(arguments.dropFirst()), config: config)
    }
    let command: Command
    do {
      command = try Command(arguments)
    } catch {
      usageError(error.description)
    }
    if case .help = command {
      print(usage)
      return
    }
    do {
      // --config, else where every Tether app looks (the settings command looks there too).
      let configuration: TetherConfiguration =
        try config.map { .file($0) } ?? .discover(app: "notes")
      try TetherSystem.bootstrap(configuration: configuration, strategies: strategies, keys: keys)
      try await run(command)
    } catch {
      fail("\(error)")
    }
    await TetherSystem.flush()
  }

  /// `notes settings ...`: Tether's settings tool, built with the app's strategies and keys, so
  /// it reads and writes each key as its declared type. Given `notes --config PATH settings
  /// COMMAND ...`, it hands the path on: `COMMAND --config PATH ...`.
  static func settings(_ arguments: [String], config: String?) async -> Never {
    var arguments = arguments
    if let config, let command = arguments.first, !command.hasPrefix("-"), command != "help" {
      arguments.insert(contentsOf: ["--config", config], at: 1)
    }
    await TetherCommand(name: "notes settings", app: "notes", strategies: strategies, keys: keys)
      .main(arguments)
  }

  /// Counts the launch, then does what `command` says.
  static func run(_ command: Command) async throws {
    @Shared(.launches) var launches
    // Across processes: two notes starting at once each count, under the defaults file's lock.
    let launch = try await $launches.transaction { count in
      count += 1
      return count
    }
    @Shared(.notes) var notes
    switch command {
    case .greet:
      @SharedReader(.motd) var motd
      if let error = $motd.loadError { warn("the message of the day: \(error)") }
      print(motd)
      print("Launch \(launch). ", terminator: "")
      try await load($notes)
      print(notes.isEmpty ? "No notes yet: notes add TEXT" : "Notes:")
      list(notes)
    case .list:
      try await load($notes)
      list(notes)
    case .add(let text):
      try await load($notes)
      $notes.withLock { $0.append(Note(text: text)) }
      try await $notes.save()
      print("Added note \(notes.count).")
    case .remove(let number):
      try await load($notes)
      let removed = try $notes.withLock { notes in
        guard notes.indices.contains(number - 1) else {
          throw NotesError("there is no note \(number); notes list shows \(notes.count)")
        }
        return notes.remove(at: number - 1)
      }
      try await $notes.save()
      print("Removed note \(number): \(removed.text)")
    case .help:
      print(usage)
    }
  }

  /// Loads the notes, so that a change is made to what is stored; a file that cannot be read is
  /// an error, not an empty list that a change would then replace.
  static func load(_ notes: Shared<[Note]>) async throws {
    do {
      try await notes.load()
    } catch {
      throw NotesError("the notes cannot be read: \(error)")
    }
  }

  static func list(_ notes: [Note]) {
    let dates = ISO8601DateFormatter()
    for (index, note) in notes.enumerated() {
      let date = dates.string(from: note.date)
      print("\(index + 1). \(note.text)  (\(date))")
    }
  }

  static func warn(_ message: String) {
    FileHandle.standardError.write(Data("notes: \(message)\n".utf8))
  }

  static func fail(_ message: String) -> Never {
    warn(message)
    exit(1)
  }

  static func usageError(_ message: String) -> Never {
    warn("\(message)\n\n\(usage)")
    exit(64)
  }
}

/// What `notes` was asked to do.
enum Command {
  case greet
  case list
  case add(String)
  case remove(Int)
  case help

  init(_ arguments: [String]) throws(NotesError) {
    switch (arguments.first, arguments.count) {
    case (nil, _): self = .greet
    case ("list", 1): self = .list
    case ("add", 2...):
      let text = arguments.dropFirst().joined(separator: " ")
      guard !text.isEmpty else { throw NotesError("add needs the note's TEXT") }
      self = .add(text)
    case ("remove", 2):
      guard let number = Int(arguments[1]), number > 0 else {
        throw NotesError("remove needs a note's number (1, 2, ...), not \(arguments[1])")
      }
      self = .remove(number)
    case ("-h", 1), ("--help", 1), ("help", 1): self = .help
    default:
      throw NotesError("unknown command: \(arguments.joined(separator: " "))")
    }
  }
}

/// A failure, said in a sentence.
struct NotesError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}
