import Foundation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// A read-only strategy as an app writes one: a notice board the app reads and never writes.
/// Each `[strategy.board]` section names a board (`board = ID`); a test posts to it through the
/// board's ``TestStorage``, standing in for whoever else writes it.
struct BoardStrategy: ReadOnlyPersistenceStrategy {
  static let kind = "board"
  static var keyOptionNames: Set<String>? { [] }

  let board: String

  init(options: StrategyOptions) throws {
    guard let board = options["board"] else {
      throw options.invalid("board", "[strategy.board] needs board = ID")
    }
    self.board = board
  }

  func readerKey<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedReaderKey<Value> {
    // A board holds text only: a key of any other type is refused, not force-cast.
    guard let key = BoardKey(board: board, name: name) as? any SharedReaderKey<Value> else {
      throw TetherError.unsupportedType("\(Value.self)", key: name, kind: Self.kind)
    }
    return key
  }

  /// The storage of `name` on `board`, made on first use.
  static func storage(_ board: String, _ name: String) -> TestStorage<String> {
    boards.withLock { boards in
      if let storage = boards["\(board)/\(name)"] { return storage }
      let storage = TestStorage<String>()
      boards["\(board)/\(name)"] = storage
      return storage
    }
  }

  private static let boards = Mutex<[String: TestStorage<String>]>([:])
}

/// A value on a board: it loads and follows what is posted, and has no `save`.
struct BoardKey: SharedReaderKey, CustomStringConvertible {
  let board: String
  let name: String

  var id: String { "\(board)/\(name)" }
  var description: String { ".board(\(String(reflecting: name)))" }
  private var storage: TestStorage<String> { BoardStrategy.storage(board, name) }

  func load(context: LoadContext<String>, continuation: LoadContinuation<String>) {
    TestKey(name, storage: storage).load(context: context, continuation: continuation)
  }

  func subscribe(
    context: LoadContext<String>, subscriber: SharedSubscriber<String>
  ) -> SharedSubscription {
    TestKey(name, storage: storage).subscribe(context: context, subscriber: subscriber)
  }
}

extension SharedKey where Self == RegisteredKey<String>.Default {
  fileprivate static var motd: Self { Self[.registered("motd"), default: "welcome"] }
}

/// Registered keys of a read-only strategy: read through `@SharedReader`; `@Shared` keeps
/// changes in memory and reports `readOnly`, never a crash or a silent success.
@Suite struct ReadOnlyStrategyTests {
  /// A bootstrap mapping `motd` and `count` to a new board, `scratch` to memory.
  static func withBoard(
    _ body: (_ board: String) async throws -> Void
  ) async throws {
    let board = UUID().uuidString
    try await TetherSystem.withBootstrap(
      configuration: .string(
        "[keys]\nmotd = board\ncount = board\nscratch = memory\n\n[strategy.board]\nboard = \(board)\n",
        origin: "board.conf"),
      strategies: [InMemoryStrategy.self, BoardStrategy.self]
    ) {
      try await body(board)
    }
  }

  @Test func aReaderLoadsAndFollowsTheValue() async throws {
    try await Self.withBoard { board in
      let storage = BoardStrategy.storage(board, "motd")
      @SharedReader(.registered("motd")) var unposted = "welcome"
      #expect(unposted == "welcome")
      #expect($unposted.loadError == nil)
      storage.externalChange("maintenance at noon")
      #expect(unposted == "maintenance at noon")
      // A holder made later loads the posted value.
      @SharedReader(.motd) var later
      #expect(later == "maintenance at noon")
      #expect(storage.activeSubscriptions == 1)
    }
  }

  @Test func aChangeThroughSharedStaysInMemoryAndReportsReadOnly() async throws {
    try await Self.withBoard { board in
      let storage = BoardStrategy.storage(board, "motd")
      storage.externalChange("posted")
      @Shared(.motd) var motd
      @SharedReader(.registered("motd")) var reader = "unused"
      #expect(motd == "posted")
      $motd.withLock { $0 = "edited here" }
      #expect(motd == "edited here")
      #expect(reader == "edited here")
      await expectEventually { $motd.saveError != nil }
      #expect($motd.saveError as? TetherError == .readOnly(key: "motd", kind: "board"))
      #expect(storage.value == "posted")
      #expect(storage.saves.isEmpty)
    }
  }

  @Test func saveTransactionAndResetThrowReadOnly() async throws {
    try await Self.withBoard { board in
      BoardStrategy.storage(board, "motd").externalChange("posted")
      @Shared(.motd) var motd
      let readOnly = TetherError.readOnly(key: "motd", kind: "board")
      await #expect(throws: readOnly) { try await $motd.save() }
      await #expect(throws: readOnly) { try await $motd.transaction { $0 = "changed" } }
      await #expect(throws: readOnly) { try await $motd.reset() }
      // Neither the transaction nor the reset changed anything.
      #expect(motd == "posted")
      #expect(BoardStrategy.storage(board, "motd").saves.isEmpty)
    }
  }

  @Test func theMessageSaysWhatToDo() {
    let error = TetherError.readOnly(key: "motd", kind: "board")
    #expect(error.description.contains("\"motd\""))
    #expect(error.description.contains("\"board\" only reads"))
    #expect(error.description.contains("@SharedReader"))
  }

  @Test func aRegisteredKeyAndItsReaderKeyAreOneReference() async throws {
    try await Self.withBoard { board in
      BoardStrategy.storage(board, "motd").externalChange("posted")
      @SharedReader(BoardKey(board: board, name: "motd")) var direct = "unused"
      @Shared(.motd) var registered
      $registered.withLock { $0 = "local" }
      #expect(direct == "local")
    }
  }

  @Test func aTypeTheStrategyCannotReadIsUnsupported() async throws {
    try await Self.withBoard { _ in
      @SharedReader(.registered("count")) var count = 0
      #expect(count == 0)
      #expect(
        $count.loadError as? TetherError
          == .unsupportedType("Int", key: "count", kind: "board"))
    }
  }

  @Test func startupChecksAcceptItsKeysAndRefuseItsUnsupportedTypes() async throws {
    let board = UUID().uuidString
    let section = "\n[strategy.board]\nboard = \(board)\n"
    BoardStrategy.storage(board, "motd").externalChange("posted")
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\nmotd = board\n" + section),
      strategies: [BoardStrategy.self], keys: [.key(.motd, "The message of the day.")]
    ) {
      @SharedReader(.motd) var motd
      #expect(motd == "posted")
    }
    let count = KeyDeclaration.key(
      RegisteredKey<Int>.Default[.registered("count"), default: 0], "A count.")
    let error = await #expect(throws: TetherError.self) {
      try await TetherSystem.withBootstrap(
        configuration: .string("[keys]\ncount = board\n" + section),
        strategies: [BoardStrategy.self], keys: [count]
      ) {}
    }
    #expect(
      error?.description.contains(#"declared as Int, which strategy "board""#) == true,
      "\(String(describing: error))")
  }

  @Test func keyForReadingAsksEachKindOfStrategyForTheRightKey() throws {
    let board = try BoardStrategy(options: StrategyOptions(["board": UUID().uuidString]))
    #expect(
      throws: TetherError.readOnly(key: "motd", kind: "board"),
      performing: { try board.key(named: "motd", as: String.self, options: StrategyOptions()) })
    let reader = try board.keyForReading(named: "motd", as: String.self, options: StrategyOptions())
    #expect(reader is BoardKey)
    let memory = try InMemoryStrategy(options: StrategyOptions())
    let key = try memory.keyForReading(named: "x", as: Int.self, options: StrategyOptions())
    #expect(key is any SharedKey<Int>)
  }

  /// A read-write strategy is unchanged: the in-memory key next to the board still writes.
  @Test func aReadWriteStrategyStillWrites() async throws {
    try await Self.withBoard { _ in
      @Shared(.registered("scratch")) var scratch = 0
      $scratch.withLock { $0 += 1 }
      try await $scratch.save()
      #expect($scratch.saveError == nil)
      @Shared(.registered("scratch")) var again = 5
      #expect(again == 1)
    }
  }
}
