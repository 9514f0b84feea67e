package import Foundation
import Glibc
import TetherLocking

/// A file key's resolved path and folder, and the file itself when it was opened on the way.
package struct ResolvedFile: ~Copyable {
  package let path: String
  package let folder: HashedPath
  package var opened: OpenedFile?

  init(path: String, folder: HashedPath, opened: consuming OpenedFile?) {
    self.path = path
    self.folder = folder
    self.opened = opened
  }
}

/// The path a file key really writes: symlinks followed (also a link whose target does not exist
/// yet, which `resolvingSymlinksInPath` leaves alone), `.` and `..` and doubled slashes removed.
package enum ResolvedPath {
  package static func of(_ url: URL) -> String {
    file(url).path
  }

  /// The resolved form of an absolute path.
  package static func of(path: String) -> String {
    file(path: LexicalPath.normalized(path)).path
  }

  /// `url`'s resolved path and its folder, hashed: a folder's hash is kept with its resolution,
  /// so the keys of one folder hash it once (a file store hands it to the watcher).
  package static func file(_ url: URL) -> (path: String, folder: HashedPath) {
    file(path: LexicalPath.normalized(plainPath(of: url)))
  }

  /// ``file(_:)``, with the file opened on the way when `mark` gives a mark for its folder (a
  /// watcher's, when it watches the folder; see ``OpenedFile``): a key that loads its file then
  /// needs no `open` of its own to read it. Most keys are in folders watched for the keys
  /// before them.
  package static func opening(
    _ url: URL, marking mark: (HashedPath) -> WatchMark?
  ) -> ResolvedFile {
    let path = LexicalPath.normalized(plainPath(of: url))
    let folder = lexicalFolder(of: path)
    // Taken before the file is opened: what is read then is checked against later events.
    let mark = mark(folder)
    let outcome = LinkFreeOpen.open(path, pathOnly: mark == nil)
    switch outcome {
    case .opened(let descriptor):
      if let mark {
        return ResolvedFile(
          path: path, folder: folder,
          opened: OpenedFile(mark: mark, descriptor: descriptor, path: path))
      }
      close(descriptor)
    case .missing:
      if let mark {
        return ResolvedFile(
          path: path, folder: folder, opened: OpenedFile(mark: mark, descriptor: -1, path: path))
      }
    case .linkOnTheWay, .cannotTell:
      let resolved = resolve(path, after: outcome)
      return ResolvedFile(
        path: resolved.path, folder: resolved.folder, opened: OpenedFile?.none)
    }
    return ResolvedFile(path: path, folder: folder, opened: OpenedFile?.none)
  }

  /// The percent-encoded path is the plain one when nothing in it is encoded, and is had
  /// without `path`'s decoding pass.
  private static func plainPath(of url: URL) -> String {
    let encoded = url.path(percentEncoded: true)
    return encoded.withUTF8Bytes({ $0.contains(UInt8(ascii: "%")) }) ? url.path : encoded
  }

  /// `path` (normalized) resolved. A path with no link on the way is its own resolved path,
  /// which one `openat2` (with `O_PATH`, then `close`) tells exactly: a remembered resolution
  /// checked by a `stat` of the folder could not see a folder moved with a link left in its
  /// place. Two calls where the `stat` was one; keys take ``opening(_:)``, where the open is
  /// the one that reads the file.
  private static func file(path: String) -> (path: String, folder: HashedPath) {
    let outcome = LinkFreeOpen.open(path, pathOnly: true)
    switch outcome {
    case .opened(let descriptor):
      close(descriptor)
      return (path, lexicalFolder(of: path))
    case .missing:
      return (path, lexicalFolder(of: path))
    case .linkOnTheWay, .cannotTell:
      return resolve(path, after: outcome)
    }
  }

  /// `path` resolved the long way, after `openat2` could not show it to be its own resolved
  /// path; a link found on the way means no folder remembered as lexical can be trusted.
  private static func resolve(
    _ path: String, after outcome: LinkFreeOpen
  ) -> (path: String, folder: HashedPath) {
    if case .linkOnTheWay = outcome { return resolve(path, trustingLexicalFolders: false) }
    return resolve(path, trustingLexicalFolders: true)
  }

  /// `path`'s parent as written, hashed; the last one is kept, since keys are mostly made
  /// folder by folder.
  private static func lexicalFolder(of path: String) -> HashedPath {
    let last = folders.withLock { $0.lastLexical }
    if let last, LexicalPath.isDirectChild(path, of: last.string) { return last }
    let folder = HashedPath(LexicalPath.parent(of: path))
    folders.withLock { $0.lastLexical = folder }
    return folder
  }

  /// `path` resolved the long way, folder by folder. A folder remembered as its own real path
  /// is trusted only when `trustingLexicalFolders`: after `openat2` found a link on the way, it
  /// may be that folder, moved with a link left in its place (its identity unchanged).
  private static func resolve(
    _ path: String, trustingLexicalFolders: Bool
  ) -> (path: String, folder: HashedPath) {
    var path = path
    // A symlink loop ends after as many hops as the kernel allows (ELOOP's limit).
    for _ in 0..<40 {
      let parent = realParent(of: path, trustingLexical: trustingLexicalFolders)
      let name = LexicalPath.name(of: path)
      // Nearly every folder is its own real path: the path is then the candidate as it is.
      let candidate = parent.isLexical ? path : LexicalPath.joining(parent.path.string, name)
      // Most names are in a folder listed since its last change, and are not links there.
      if let links = parent.links, links.isEmpty || !links.contains(name) {
        return (candidate, parent.path)
      }
      guard let target = link(at: candidate) else { return (candidate, parent.path) }
      path = LexicalPath.normalized(
        target.hasPrefix("/") ? target : LexicalPath.joining(parent.path.string, target))
    }
    return (path, HashedPath(LexicalPath.parent(of: path)))
  }

  /// Folders resolved before, each with the identity of the folder it resolved to.
  private static let folders = UnfairMutex(ResolvedFolders())

  private struct ResolvedFolders {
    var byPath: [String: ResolvedFolder] = [:]
    /// The folder of the last path resolved, and its entry: keys are mostly made folder by
    /// folder, and a path in it is known to be without making its parent's string or hashing
    /// it.
    var lastPath = ""
    var last: ResolvedFolder?
    /// The folder of the last path found to have no link on the way, hashed.
    var lastLexical: HashedPath?
  }

  /// A class: an entry is copied out of the table for each key, and copying a struct of its
  /// strings and set would retain each.
  private final class ResolvedFolder: Sendable {
    let path: HashedPath
    /// Whether `path` is the folder's own (lexical) path: no link on the way.
    let isLexical: Bool
    let device: UInt64
    let inode: UInt64
    let listing: Listing?

    init(path: HashedPath, isLexical: Bool, device: UInt64, inode: UInt64, listing: Listing?) {
      self.path = path
      self.isLexical = isLexical
      self.device = device
      self.inode = inode
      self.listing = listing
    }
  }

  /// A folder's links as a listing found them, and its change time then, which any later entry
  /// made, removed or renamed in it moves.
  private struct Listing: Sendable {
    let changed: timespec
    let links: Set<String>
  }

  /// How long a folder must have been unchanged before its listing is trusted: a change within
  /// the same tick of the file system's clock could leave its change time as it was (two
  /// seconds covers FAT; ext4, XFS, Btrfs and tmpfs tick in milliseconds).
  private static let listingMargin = 2

  /// A folder with symlinks resolved, and when it is known, the names in it that may be links.
  private struct RealParent {
    let path: HashedPath
    let isLexical: Bool
    let links: Set<String>?
  }

  /// `path`'s folder with symlinks resolved. `realpath` reads every component's link (three to
  /// six system calls a key); a folder resolved before costs one `stat` instead, which also
  /// notices when a link on the way now leads to another folder, and whether the folder changed
  /// since it was listed (a listing saves each file's `readlink`).
  private static func realParent(of path: String, trustingLexical: Bool) -> RealParent {
    let last = folders.withLock { folders -> (path: String, folder: ResolvedFolder)? in
      guard let last = folders.last, LexicalPath.isDirectChild(path, of: folders.lastPath) else {
        return nil
      }
      return (folders.lastPath, last)
    }
    let parent = last?.path ?? LexicalPath.parent(of: path)
    var info = stat()
    do {
      try systemCall("stat", path: parent) { parent.withCString { stat($0, &info) } }
    } catch {
      // No folder yet (it is made at the first write): nothing to resolve through.
      return RealParent(path: HashedPath(parent), isLexical: true, links: nil)
    }
    let (device, inode, changed) = (UInt64(info.st_dev), UInt64(info.st_ino), info.st_ctim)
    let known =
      last?.folder
      ?? folders.withLock { folders in
        let known = folders.byPath[parent]
        if let known { (folders.lastPath, folders.last) = (parent, known) }
        return known
      }
    if let known, known.device == device, known.inode == inode, trustingLexical || !known.isLexical
    {
      if let listing = known.listing, listing.changed == changed {
        return RealParent(path: known.path, isLexical: known.isLexical, links: listing.links)
      }
      return remember(parent, known.path, device: device, inode: inode, changed: changed)
    }
    guard let resolved = realpath(parent, nil) else {
      return RealParent(path: HashedPath(parent), isLexical: true, links: nil)
    }
    defer { free(resolved) }
    return remember(
      parent, HashedPath(String(cString: resolved)), device: device, inode: inode,
      changed: changed)
  }

  /// Notes that `parent` resolves to `real`, listed when it has been still for long enough.
  private static func remember(
    _ parent: String, _ real: HashedPath, device: UInt64, inode: UInt64, changed: timespec
  ) -> RealParent {
    var listing: Listing?
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    if changed.tv_sec + listingMargin < now.tv_sec {
      do {
        listing = Listing(
          changed: changed, links: try DirectoryListing.possibleLinks(in: real.string))
      } catch {
        // Unreadable (search without read permission): each name is asked instead.
      }
    }
    let isLexical = real.string == parent
    let folder = ResolvedFolder(
      path: real, isLexical: isLexical, device: device, inode: inode, listing: listing)
    folders.withLock { folders in
      // Bounded for processes that make keys in ever new folders (test suites).
      if folders.byPath.count >= 4096 { folders.byPath.removeAll(keepingCapacity: true) }
      folders.byPath[parent] = folder
      (folders.lastPath, folders.last) = (parent, folder)
    }
    return RealParent(path: real, isLexical: isLexical, links: listing?.links)
  }

  /// The target of the symlink at `path`, or `nil` when it is not one (nearly always): asked
  /// with a buffer small enough for the stack, and again with room for any path only when the
  /// target filled it (a `PATH_MAX` buffer is a heap allocation a key).
  private static func link(at path: String) -> String? {
    let target = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) {
      readTarget(of: path, into: $0)
    }
    guard case .truncated = target else { return target.path }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(PATH_MAX) + 1) {
      readTarget(of: path, into: $0).path
    }
  }

  private enum Target {
    case notALink
    case path(String)
    case truncated

    var path: String? {
      if case .path(let path) = self { return path }
      return nil
    }
  }

  private static func readTarget(
    of path: String, into buffer: UnsafeMutableBufferPointer<UInt8>
  )
    -> Target
  {
    let count = readlink(path, buffer.baseAddress!, buffer.count)
    guard count > 0 else { return .notALink }
    guard count < buffer.count else { return .truncated }
    return .path(String(decoding: buffer[..<count], as: UTF8.self))
  }
}

extension timespec {
  fileprivate static func == (lhs: timespec, rhs: timespec) -> Bool {
    lhs.tv_sec == rhs.tv_sec && lhs.tv_nsec == rhs.tv_nsec
  }
}
