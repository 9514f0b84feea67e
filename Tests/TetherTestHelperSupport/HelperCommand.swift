import Foundation

/// What `tether-test-helper` is to do: each case sets up a situation that must not happen inside
/// the shared test process (exact watch counts, a paused watcher, exhausted descriptors, lowered
/// kernel limits, a process killed or exiting mid-save), then reports what it saw.
///
/// The command goes to the helper as its one argument, encoded as JSON (``arguments()``), so a
/// launcher such as `setpriv` or `unshare` can pass it on untouched.
///
/// ```swift
/// let run = try await runHelper(.countWatches(folder: root.path, folders: 10, files: 1000))
/// #expect(run.report.inotifyWatches == 11)
/// ```
public enum HelperCommand: Codable, Sendable, Equatable {
  // MARK: Counting watches

  /// Watches `files` files spread over `folders` folders of `folder`; with `watchedRoot`, a file
  /// in `folder` first, so each folder is made where the watcher sees it appear. Reports the
  /// watch statistics and ``HelperReport/files``.
  case countWatches(folder: String, folders: Int, files: Int, watchedRoot: Bool = false)

  /// Watches a file in each of 20 folders of `folder` (watch descriptors up to 21, which `/proc`
  /// writes in hex), cancels every watch, and reports how many watches the kernel still holds
  /// (``HelperReport/kernelWatches``) once the watcher counts only its control folder's, and how
  /// often the library was started afresh (``HelperReport/rebuilds``).
  case releaseFolders(folder: String)

  /// With the watcher thread paused, watches a file in a new folder of `folder` (the call must
  /// not wait for the thread), writes the file and resumes the thread; reports whether the
  /// write was delivered, the kernel's and the watcher's count of watches once the thread has
  /// caught up, and the kernel's once the folder is released.
  case watchWhilePaused(folder: String)

  /// Watches `folder`/a/one.json, cancels, watches `folder`/b/other.json, then
  /// `folder`/a/two.json: reports whether the folder's kernel watch stood throughout, whether a
  /// write to two.json is delivered, how long after the last cancel the watches went, and
  /// whether a file of a folder deleted and made again while idle is delivered.
  case rewatchFolder(folder: String)

  // MARK: Folders that go and come back

  /// The last watch of `folder`/a is cancelled and the folder deleted before the watcher thread
  /// runs, so it removes a watch the kernel already dropped; then the folder is made again and
  /// watched, and an edit must arrive (``HelperReport/delivered``).
  case rewatchDeletedFolder(folder: String)

  /// Watches `folder`/a/data.json and `folder`/b/data.json and deletes `folder`/a: a's file is
  /// missing and b's edit still arrives, with the library not started afresh; then `folder`/a is
  /// made again with its file, which arrives too.
  case dropOneFolder(folder: String)

  /// Watches `folder`/a/data.json and renames `folder`/a to `folder`/gone: the file is missing,
  /// the kernel's watch (which followed the folder) is removed, a write in `folder`/gone is not
  /// taken for the file, and a new `folder`/a with the file arrives.
  case moveFolderAway(folder: String)

  /// A folder changes between the watcher thread finding it missing and its watch of the
  /// nearest existing ancestor (see ``AncestorChange``); reports whether a write and then a
  /// second write to a file in it arrive, and whether anything is polled.
  case ancestorChange(AncestorChange, folder: String)

  // MARK: Overflows and a paused or lagging watcher

  /// Pauses the watcher, creates enough files beside the watched one in `folder` to overflow
  /// the kernel's queue and changes it, then resumes and waits for the change.
  case overflow(folder: String)

  /// (With `XDG_RUNTIME_DIR` a folder of its own.) With the watcher paused and its queue
  /// overflowed, watches a file in a new folder of `folder` from another thread, whose wake-up
  /// of the watcher thread is lost to the overflow. Resumes the watcher and reports whether that
  /// watch call returned (``HelperReport/returned``).
  case overflowLostWake(folder: String)

  /// With the watcher paused, overflows its queue and truncates the watched file of `folder` (a
  /// writer opened it and has not written yet); resumes it, waits past the settle delay, then
  /// writes and closes. Only the written content may arrive, never the empty file.
  case overflowMidWrite(folder: String)

  /// Eight threads add and cancel watches of files in folders of `folder` not made yet (150
  /// each) while another thread floods a watched folder with events; reports whether the
  /// flooded folder's watch stood, whether `folder`'s narrowed to its moves once no watch
  /// waited through it, and whether a change made afterwards arrived.
  case watchChurnUnderFlood(folder: String)

  /// Eight threads make and drop file keys in folders of `folder` not made yet (600 each once
  /// the change is made) while the watcher thread takes up 8,000 events queued before a watched
  /// file's change (queued while it was paused). Reports whether the change arrived while the
  /// keys were still being made (``HelperReport/deliveredWhileChurning``), and at all.
  case keyChurn(folder: String)

  /// The watcher's queue overflows again and again (paused, flooded, resumed, every few hundred
  /// milliseconds) while the watched file of `folder` is replaced once; reports whether the
  /// change arrived while the overflows went on, and how many came before it.
  case overflowsKeepComing(folder: String)

  /// A writer truncates the watched file of `folder` while the watcher thread is paused, and a
  /// check of the file falls due then; the thread goes on, and the writer writes and closes.
  /// With `behindAWake`, a wake-up of the thread and 5,000 other events are queued before the
  /// truncation: the check must wait for the events queued before it, not for any wake-up.
  case laggingMidWrite(folder: String, behindAWake: Bool = false)

  /// A subscriber of `folder`/c.json takes 6 s, holding up the checks behind it; meanwhile a's
  /// check falls due, and after 5.5 s a writer truncates a: only the writer's bytes may arrive.
  case emptiedBehindASlowSubscriber(folder: String)

  /// With the watcher thread paused, a check of `folder`/b.json (emptied by a stalled writer)
  /// waits for the thread; `folder`/a.json is deleted and checked meanwhile, and its removal
  /// must arrive while the thread is still paused (``HelperReport/missingWhilePaused``).
  case missingWhileACheckWaits(folder: String)

  // MARK: Falling back to polling

  /// Opens 1,100 descriptors first, so the library's would be >= 1024; then watches two files
  /// of `folder`, changes them and reports how many changes arrived.
  case manyDescriptors(folder: String)

  /// Watches two files in each of `folders`, changes each, and reports how many changes
  /// arrived (run under lowered kernel limits to make the watcher poll).
  case watchFolders(folders: [String])

  // MARK: Saving and exiting

  /// Saves 1, 2, 3, … to the file key at `file` with `save()` (written at once) until killed.
  case saveLoop(file: String)

  /// Leaves 2 pending in the throttle window of the file key at `file`, then calls `exit(0)`;
  /// with `released`, once its holder (and the file's store with it) has gone.
  case exitPending(file: String, released: Bool = false)

  /// Like ``exitPending(file:released:)``, with `flushOnTermination`; creates `ready` and waits
  /// for SIGTERM.
  case termPending(file: String, ready: String)

  /// Holds the file key at `file`, creates `ready`, and waits until the key holds `value`
  /// (reports ``HelperReport/seen`` and exits 0), or 60 s pass (exits 2).
  case waitFor(file: String, value: Int, ready: String)

  /// Sets the file key at `file` to `value` through `@Shared`, then exits (flushing).
  case write(file: String, value: Int)

  /// Changes the file key at `file` inside its own `withLock` through a second holder, or
  /// (`fromOnChange`) from an Observation `onChange` of it; reports the value it ends with as
  /// ``HelperReport/seen``. A debug build stops at the report's assertion.
  case changeInsideChange(file: String, fromOnChange: Bool)

  /// A write into a folder of `folder` made read-only fails; once it is writable again, a flush
  /// writes the change that was kept. Reports ``HelperReport/failed``,
  /// ``HelperReport/afterFlush`` and ``HelperReport/saveErrorCleared``.
  case readOnlyFolder(folder: String)

  // MARK: Defaults

  /// Like ``exitPending(file:released:)``, for a defaults key `count` of the store at `file`.
  case defaultsExitPending(file: String, released: Bool = false)

  /// Sets the defaults key `key` of the store at `file` to `value` through `@Shared` and exits
  /// without flushing by hand (UserDefaults on Linux loses such values).
  case defaultsSet(file: String, key: String, value: Int)

  /// Writes the defaults keys `prefix`0…`prefix`(`count`-1) of the store at `file`, each saved
  /// at once, and reports when each save returned (``HelperReport/saved``). With `go`, it makes
  /// `go`.`prefix`.ready and starts once `go` exists, so two writers start together.
  case defaultsMany(file: String, prefix: String, count: Int, go: String? = nil)

  /// Increments the registered key `key` (mapped to the defaults file `file`, with `throttle`)
  /// `count` times, each `withLock { $0 += 1 }` then `save()`, starting once `go` exists (it
  /// makes `go`.`key`.ready first). Reports the value it ends holding (``HelperReport/seen``),
  /// how often the value it held went back (``HelperReport/wentBack``) and the saves that
  /// threw (``HelperReport/saveFailures``).
  case defaultsCount(file: String, key: String, count: Int, throttle: String, go: String)

  /// Holds the counter `key` stored in `file` by `store`, with the default -1, until it holds
  /// `stored`; then makes `ready` and waits until it holds its default again, as a reset by
  /// another process brings it back (reports ``HelperReport/seen``, -1, and exits 0), or 60 s
  /// pass (exits 2).
  case holdUntilReset(
    store: TransactionStore, file: String, key: String, stored: Int, ready: String)

  // MARK: Listing folders

  /// `count` × `transaction { $0 += 1 }` of the counter `key`, stored in `file` by `store`,
  /// once `go` exists (the helper makes `go`.`tag`.ready first); a `count` of 0 goes on until
  /// killed. Prints `acked N` as each transaction returns (N: the value it wrote). With `mixed`,
  /// each round also does `withLock { $0 += 1 }` and `save()` of the process's own defaults key
  /// `mixed` in the same file. Reports the transactions and saves that threw
  /// (``HelperReport/saveFailures``) and the value `mixed` ends with (``HelperReport/seen``).
  case transact(
    store: TransactionStore, file: String, key: String, count: Int, mixed: String? = nil,
    tag: String, go: String)

  /// Holds the counter `key` stored in `file` by `store` (as ``transact(store:file:key:count:mixed:tag:go:)``
  /// does), makes `go`.`parity`.ready and waits for `go`; then answers every value of its
  /// `parity` (0: even, 1: odd) with the next one, `withLock` and `save()`, as soon as it shows,
  /// until the value reaches `until` (reported as ``HelperReport/seen``, with the saves that
  /// threw as ``HelperReport/saveFailures``), or 120 s pass (exits 2, naming the last value).
  /// Two helpers of opposite parities rally: each stroke is a change the other must see, and a
  /// change lost stops the rally.
  case rally(
    store: TransactionStore, file: String, key: String, parity: Int, until: Int, go: String)

  // MARK: PostgreSQL

  /// Bootstraps with the config text `config` (mapping `key` to `postgres`), holds
  /// `@Shared(.registered(key)) var value = 0`, and prints a ``PostgresHolderLine`` whenever the
  /// value, `isLoading`, `loadError` or `saveError` changes. Reads commands from standard input:
  /// `set N` (`withLock`), `save` (prints `{"saved":N}` or `{"saveFailed":"…"}` once it returns)
  /// and `exit` (flushes and exits 0). Runs until told to exit or killed.
  case pgHold(config: String, key: String)

  // MARK: Lifecycle and logging

  /// Bootstraps a file strategy in `folder` with a 30 s throttle; `count` is set to 1 (written
  /// at once) then 2 (pending), `farewell` to 1. Runs a `ServiceGroup` (graceful shutdown on
  /// SIGTERM) of `TetherService` and a service whose graceful shutdown sets `farewell` to 2
  /// (pending) and writes `folder`/marker; prints `ready` once it runs. When the group returns
  /// it exits 0 at once, without the exit-time flush, so the files show what the group wrote.
  case serviceGroup(folder: String)

  /// Bootstraps a file strategy in `folder` with a logger of its own, over a `LoggingSystem`
  /// that records too; uses a name the config does not map, and two keys of one file with
  /// different settings. Reports each message (``HelperReport/messages``) as
  /// `given LEVEL MODULE: MESSAGE` (through the logger) or `system LEVEL LABEL: MESSAGE`.
  case givenLogger(folder: String)

  /// Lists a `dirent` record named `a` that ends where an inaccessible page begins, as the last
  /// record of `readdir`'s buffer can; reading more than the record is a segmentation fault.
  /// Reports the names seen (``HelperReport/names``).
  case shortRecordAtPageEnd

  /// The helper's command-line arguments for this command: the command as one JSON argument.
  public func arguments() throws -> [String] {
    [String(decoding: try JSONEncoder().encode(self), as: UTF8.self)]
  }

  /// The command the helper was given as its `arguments` (``arguments()``'s, without the
  /// executable's path); throws when they are not one encoded command.
  public init(arguments: [String]) throws {
    guard arguments.count == 1, let argument = arguments.first else {
      throw HelperCommandError.notOneArgument(arguments)
    }
    self = try JSONDecoder().decode(HelperCommand.self, from: Data(argument.utf8))
  }
}

/// Where a ``HelperCommand/transact(store:file:key:count:mixed:tag:go:)`` counter is stored.
public enum TransactionStore: String, Codable, Sendable {
  /// A JSON file of its own (`.fileStorage`).
  case file
  /// A line of a defaults file (a registered key mapped to `defaults`).
  case defaults
  /// A row of a PostgreSQL table: `file` is then a Tether config file mapping every key to
  /// `postgres` (``PostgresHolderLine`` tests write one with `TestServer.config`'s text).
  case postgres
}

/// One line a ``HelperCommand/pgHold(config:key:)`` helper prints, as JSON: the holder's state
/// (`value`, `loading`, `loadError`, `saveError`, the errors' descriptions or nil), or how a
/// `save` went (`saved`, the value saved, or `saveFailed`, the error).
public struct PostgresHolderLine: Codable, Sendable, Equatable {
  /// The value held.
  public var value: Int?
  /// Whether the holder was still loading.
  public var loading: Bool?
  /// The holder's `loadError`, described.
  public var loadError: String?
  /// The holder's `saveError`, described.
  public var saveError: String?
  /// A `save` returned, having saved this value.
  public var saved: Int?
  /// A `save` threw this.
  public var saveFailed: String?

  /// A line with nothing set.
  public init() {}

  /// Whether this is a state line (not a save's outcome).
  public var isState: Bool { value != nil }

  /// The line as the helper prints it, without the newline.
  public func encoded() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
  }

  /// The complete lines of `output` that are holder lines, in order (a line still being
  /// written, or one of another kind, is left out).
  public static func parse(_ output: String) -> [PostgresHolderLine] {
    var lines = output.split(separator: "\n", omittingEmptySubsequences: true)
    if !output.hasSuffix("\n"), !lines.isEmpty { lines.removeLast() }
    return lines.compactMap { try? JSONDecoder().decode(Self.self, from: Data($0.utf8)) }
  }
}

/// How a folder changes just before the watcher thread watches its nearest existing ancestor,
/// which sees nothing of what happened before it stood (``HelperCommand/ancestorChange(_:folder:)``).
public enum AncestorChange: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
  /// Watches `folder`/late/data.json; `folder`/late is made just before the thread watches
  /// `folder` for it.
  case madeBeforeAncestorWatch

  /// Watches `folder`/mid/late/data.json; `folder`/mid is removed just before the thread
  /// watches it for `folder`/mid/late, then made again with `late` once the watch call returns.
  case ancestorRemovedBeforeWatch

  /// Watches `folder`/mid/gone/data.json and removes `folder`/mid, so the kernel drops gone's
  /// watch while the library keeps a stale entry for it; `folder`/mid is made again, and gone in
  /// it just before the thread watches mid for it: the thread finds gone in a later round of
  /// the same sync.
  case droppedFolderFoundLater

  /// The case's name, as a test's argument is shown.
  public var description: String { rawValue }
}

/// Why the helper's arguments are not a ``HelperCommand``.
public enum HelperCommandError: Error, CustomStringConvertible {
  /// The helper takes exactly one argument, the encoded command; it was given these.
  case notOneArgument([String])

  /// What went wrong, for the helper's error output.
  public var description: String {
    switch self {
    case .notOneArgument(let arguments):
      "expected one argument, a JSON-encoded HelperCommand; got \(arguments)"
    }
  }
}
