import Foundation
import TetherFiles
import TetherTestHelperSupport

// Listing a folder's records as `readdir` gives them.
extension Helper {
  /// `shortRecordAtPageEnd`: lists a `dirent` record named `a` (24 bytes, as `readdir` gives
  /// it) that ends where an inaccessible page begins, as the last record of `readdir`'s buffer
  /// can; reading more than the record is a segmentation fault. Reports the names seen.
  static func shortRecordAtPageEnd() {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    guard
      let pages = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      pages != MAP_FAILED, mprotect(pages + page, page, PROT_NONE) == 0
    else { fail("cannot map a guarded page: errno \(errno)") }
    let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    let length = (nameOffset + 2 + 7) / 8 * 8
    let record = pages + page - length
    record.storeBytes(
      of: UInt16(length), toByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_reclen)!,
      as: UInt16.self)
    record.storeBytes(
      of: UInt8(DT_REG), toByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_type)!,
      as: UInt8.self)
    record.storeBytes(of: UInt8(ascii: "a"), toByteOffset: nameOffset, as: UInt8.self)
    record.storeBytes(of: UInt8(0), toByteOffset: nameOffset + 1, as: UInt8.self)
    var given = false
    var names: [String] = []
    DirectoryListing.forEachEntry(
      from: {
        defer { given = true }
        return given ? nil : UnsafeRawPointer(record)
      }
    ) { name, _, _ in names.append(name()) }
    var report = HelperReport()
    report.names = names
    emit(report)
  }
}
