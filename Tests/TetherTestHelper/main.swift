// A child process for Tether's multi-process tests: each command (a `HelperCommand`, given as
// one JSON argument) sets up a situation that must not happen inside the shared test process
// (exact watch counts, a paused watcher, exhausted descriptors, lowered kernel limits), then
// prints one `HelperReport` with what it saw.
import Foundation
import TetherTestHelperSupport

extension Helper {
  /// The command in the helper's arguments; exits 2 when they are not one.
  static func command(from arguments: [String]) -> HelperCommand {
    do {
      return try HelperCommand(arguments: arguments)
    } catch {
      fail("usage: tether-test-helper COMMAND (a JSON-encoded HelperCommand): \(error)")
    }
  }

  /// Runs `command`'s scenario.
  static func run(_ command: HelperCommand) {
    switch command {
    case .countWatches(let folder, let folders, let files, let watchedRoot):
      countWatches(folder: folder, folders: folders, files: files, watchedRoot: watchedRoot)
    case .releaseFolders(let folder): releaseFolders(folder: folder)
    case .watchWhilePaused(let folder): watchWhilePaused(folder: folder)
    case .rewatchFolder(let folder): rewatchFolder(folder: folder)
    case .rewatchDeletedFolder(let folder): rewatchDeletedFolder(folder: folder)
    case .dropOneFolder(let folder): dropOneFolder(folder: folder)
    case .moveFolderAway(let folder): moveFolderAway(folder: folder)
    case .ancestorChange(.madeBeforeAncestorWatch, let folder):
      madeBeforeAncestorWatch(folder: folder)
    case .ancestorChange(.ancestorRemovedBeforeWatch, let folder):
      ancestorRemovedBeforeWatch(folder: folder)
    case .ancestorChange(.droppedFolderFoundLater, let folder):
      droppedFolderFoundLater(folder: folder)
    case .overflow(let folder): overflow(folder: folder)
    case .overflowLostWake(let folder): overflowLostWake(folder: folder)
    case .overflowMidWrite(let folder): overflowMidWrite(folder: folder)
    case .overflowsKeepComing(let folder): overflowsKeepComing(folder: folder)
    case .watchChurnUnderFlood(let folder): watchChurnUnderFlood(folder: folder)
    case .keyChurn(let folder): keyChurn(folder: folder)
    case .laggingMidWrite(let folder, let behindAWake):
      laggingMidWrite(folder: folder, behindAWake: behindAWake)
    case .emptiedBehindASlowSubscriber(let folder): emptiedBehindASlowSubscriber(folder: folder)
    case .missingWhileACheckWaits(let folder): missingWhileACheckWaits(folder: folder)
    case .manyDescriptors(let folder): manyDescriptors(folder: folder)
    case .watchFolders(let folders): watchFolders(folders)
    case .saveLoop(let file): saveLoop(file: file)
    case .exitPending(let file, let released): exitPending(file: file, released: released)
    case .termPending(let file, let ready): termPending(file: file, ready: ready)
    case .waitFor(let file, let value, let ready): waitFor(file: file, value: value, ready: ready)
    case .write(let file, let value): writeValue(file: file, value: value)
    case .changeInsideChange(let file, let fromOnChange):
      changeInsideChange(file: file, fromOnChange: fromOnChange)
    case .readOnlyFolder(let folder): readOnlyFolder(folder: folder)
    case .defaultsExitPending(let file, let released):
      defaultsExitPending(file: file, released: released)
    case .defaultsSet(let file, let key, let value): defaultsSet(file: file, key: key, value: value)
    case .defaultsMany(let file, let prefix, let count, let go):
      defaultsMany(file: file, prefix: prefix, count: count, go: go)
    case .defaultsCount(let file, let key, let count, let throttle, let go):
      defaultsCount(file: file, key: key, count: count, throttle: throttle, go: go)
    case .transact(let store, let file, let key, let count, let mixed, let tag, let go):
      transact(store: store, file: file, key: key, count: count, mixed: mixed, tag: tag, go: go)
    case .holdUntilReset(let store, let file, let key, let stored, let ready):
      holdUntilReset(store: store, file: file, key: key, stored: stored, ready: ready)
    case .rally(let store, let file, let key, let parity, let until, let go):
      rally(store: store, file: file, key: key, parity: parity, until: until, go: go)
    case .pgHold(let config, let key): pgHold(config: config, key: key)
    case .serviceGroup(let folder): serviceGroup(folder: folder)
    case .givenLogger(let folder): givenLogger(folder: folder)
    case .shortRecordAtPageEnd: shortRecordAtPageEnd()
    }
  }
}

Helper.run(Helper.command(from: Array(CommandLine.arguments.dropFirst())))
