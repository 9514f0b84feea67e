public import Foundation
public import Tether
import TetherFiles
import TetherWatcher

extension SharedReaderKey {
  /// A `Codable` value stored as JSON in a file, and kept in sync with every change made to the
  /// file by other processes or editors.
  ///
  /// ```swift
  /// @Shared(.fileStorage(.documentsDirectory.appending(path: "facts.json"))) var facts: [Fact] = []
  /// ```
  ///
  /// The first change is written at once and later ones within a second coalesce into one
  /// trailing write; writes are atomic and never run on the mutating thread.
  public static func fileStorage<V: Codable & Sendable>(
    _ url: URL, encoder: JSONEncoder = JSONEncoder(), decoder: JSONDecoder = JSONDecoder()
  ) -> Self where Self == FileStorageKey<V> {
    FileStorageKey(
      url: url, settings: .default,
      encode: { try encoder.encode($0) },
      decode: { try decoder.decode(V.self, from: $0) })
  }

  /// A `Codable` value stored as JSON in a file, with the default coders (`JSONEncoder()` and
  /// `JSONDecoder()`): see ``fileStorage(_:encoder:decoder:)``.
  ///
  /// The coders are shared by every such key instead of made per key.
  @inlinable
  public static func fileStorage<V: Codable & Sendable>(_ url: URL) -> Self
  where Self == FileStorageKey<V> {
    // Inlined, so the closures are made for the caller's type and capture nothing: made here,
    // generic, each was an allocation a key.
    FileStorageKey(
      url: url, settings: .default,
      coder: FileCoder(
        encode: { try DefaultCoders.encoder.encode($0) },
        decode: { try DefaultCoders.decode(V.self, from: $0) }))
  }

  /// A value stored in a file with your own encoding.
  ///
  /// Inside `@Shared(...)`, write the closures `{ @Sendable in … }`:
  ///
  /// ```swift
  /// @Shared(.fileStorage(url, encode: { @Sendable in Data($0.utf8) },
  ///                           decode: { @Sendable in String(decoding: $0, as: UTF8.self) }))
  /// var note = ""
  /// ```
  public static func fileStorage<V: Sendable>(
    _ url: URL, encode: @escaping @Sendable (V) throws -> Data,
    decode: @escaping @Sendable (Data) throws -> V
  ) -> Self where Self == FileStorageKey<V> {
    FileStorageKey(url: url, settings: .default, encode: encode, decode: decode)
  }
}

/// A key whose value lives in a file: see ``Tether/SharedReaderKey/fileStorage(_:encoder:decoder:)``.
///
/// Its id is the file's resolved, standardized path: `/a//b.json`, `/a/./b.json` and a symlink
/// to `/a/b.json` are one key, and writes go through the link to its target.
public struct FileStorageKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  /// The file, resolved through symlinks.
  public var url: URL { URL(filePath: store.path) }
  // Two references and nothing else: a key fits in an existential's inline buffer, so a holder
  // keeps it as `any SharedKey` without boxing it (a key with its path and closures inline was
  // boxed twice a holder), and copies it with two retains. The store holds the path.
  private let store: FileStore
  private let coder: FileCoder<Value>

  init(
    url: URL, settings: FileStorageSettings,
    encode: @escaping @Sendable (Value) throws -> Data,
    decode: @escaping @Sendable (Data) throws -> Value
  ) {
    self.init(url: url, settings: settings, coder: FileCoder(encode: encode, decode: decode))
  }

  @usableFromInline
  init(url: URL, settings: FileStorageSettings, coder: FileCoder<Value>) {
    // Hashed once for the tables it is looked up in (the id's, the store's, the watcher's);
    // its folder's hash comes with the folder's resolution. A file opened on the way (its
    // folder watched, no link on its path) is read for the load, which need not open it again.
    var resolved = ResolvedPath.opening(url) { FileWatcher.shared.mark(in: $0) }
    self.store = FileStores.current.store(
      path: HashedPath(resolved.path), in: resolved.folder, of: Value.self, settings: settings)
    self.coder = coder
    if let opened = resolved.opened.take() { store.offer(opened) }
  }

  /// The resolved path.
  public var id: FileStorageKeyID { FileStorageKeyID(store.key) }

  /// `.fileStorage(file:///…/facts.json)`.
  public var description: String { ".fileStorage(\(url.absoluteString))" }

  /// The throttle and durability this key's file is written with (the first key of a path in a
  /// scope decides them).
  public var settings: FileStorageSettings { store.settings }

  /// How many times this process has written the file (for tests and benchmarks).
  package var writes: Int { store.writes }

  /// Reads and decodes the file; a missing or empty file is "no value".
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    store.load(decode: coder.decode, into: continuation)
  }

  /// Delivers every change made to the file outside this process's shared references.
  public func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    // A `withLock` change goes to the throttled writer, encoded when it is written; in a burst,
    // it takes the place of the waiting change's value. Its outcome goes to the subscribers.
    let latest = LatestChange<Value, Data>(
      key: store.path, serial: store.latestSerial, encode: coder.encode)
    subscriber.takeChangesInline(from: self) { [store] value in
      if !latest.update(value) { store.saveInline(value, through: latest) }
      return true
    }
    return store.subscribe(saved: subscriber.yieldSaveResult) { [store, coder] content, seen in
      // Decoded before the holders' changes wait.
      let decoded: Result<Value?, any Error>
      switch content {
      case .missing: decoded = .success(nil)
      case .unreadable(let error):
        return subscriber.give({ $0.yield(throwing: error) }, seen: seen)
      case .data(let data) where data.isEmpty: decoded = .success(nil)
      case .data(let data):
        decoded = Result { try coder.decode(data) }
        if case .failure = decoded { store.markCorrupt(data) }
      }
      // Bytes that do not decode give, as at the first load, the default and the decoding error
      // (the bytes are backed up before a write replaces them) as one change.
      subscriber.give({ $0.yield(decoded: decoded) }, seen: seen)
    }
  }

  /// Writes the value: throttled after `withLock`, at once for `save()`.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    store.save(value, context: context, encoder: coder, continuation: continuation)
  }
}

extension FileStorageKey: TransactionalKey {
  /// Reads, changes and writes the file under its lock, `.NAME.lock` beside it, which every
  /// process's transactions of the file take.
  public func transaction(
    context: LoadContext<Value>, update: (inout Value) throws -> Void,
    stored: (Value) -> Void
  ) throws {
    try store.transaction(
      coder: coder, context: context, description: description, update: update, stored: stored)
  }
}

extension FileStorageKey: ResettableKey {
  /// Removes the file under its lock, `.NAME.lock` beside it (the one transactions take), once
  /// this process's pending changes of it are written: every holder shows its default.
  ///
  /// A file whose bytes do not decode is kept beside it first, as `NAME.corrupt-<UTC time>`, as
  /// a write over it would keep it. A missing file is success, and nothing is made for it;
  /// anything but a regular file at the path (a folder, a FIFO) is an error naming it, and stays.
  public func reset(stored: (Value?) -> Void) throws {
    try store.reset(
      decodes: { [coder] data in
        do {
          _ = try coder.decode(data)
          return true
        } catch {
          return false
        }
      },
      stored: { stored(nil) })
  }
}

/// Identifies a file-backed value by its resolved path.
public struct FileStorageKeyID: Hashable, Sendable {
  /// The resolved, standardized path.
  public let path: String
  /// The path's hash, computed once with the key's.
  private let hash: Int

  init(_ path: HashedPath) {
    self.path = path.string
    self.hash = path.stringHash
  }

  /// Ids are equal when their paths are (the hashes are compared first, as cheaper).
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.hash == rhs.hash && lhs.path == rhs.path
  }

  /// Feeds the path's hash, computed once, to `hasher`.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(hash)
  }
}

/// The coders of keys made without their own, as `fileStorage(_:encoder:decoder:)`'s defaults
/// make them: both are thread-safe, so one of each serves every key.
@usableFromInline
enum DefaultCoders {
  @usableFromInline static let encoder = JSONEncoder()
  @usableFromInline static let decoder = JSONDecoder()

  /// What `decoder` makes of `data`, read directly when it is a plain scalar (``ScalarJSON``).
  @usableFromInline
  static func decode<V: Decodable>(_ type: V.Type, from data: Data) throws -> V {
    if let value = ScalarJSON.decode(type, from: data) { return value }
    return try decoder.decode(type, from: data)
  }
}
