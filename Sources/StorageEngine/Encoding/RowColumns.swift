/// Rows as `RowCodec` writes them, stored a column at a time: how a leaf page keeps its rows
/// (format version 3, see `Docs/Internals/FileFormat.md`).
///
/// Each column of the page's rows is stored together: the rows' tags for that column
/// (`PackedTags`: one tag for all, a bit a row for two, four bits a row else); then, where
/// that is shorter than their payloads, the column's values packed (`Packing`): its integers
/// as offsets from the smallest in as many bits as the largest offset needs (or as a run, when
/// they count up evenly), its doubles that are decimals (a price, a score of two decimals) as
/// integers packed the same way, its timestamps as packed seconds and nanoseconds, its
/// strings in as few bits a byte as their alphabet needs (`PackedText`); and the other rows'
/// payloads back to back. A column of ages takes seven bits a row, of ids added in order none,
/// of Bools one, of names of lowercase letters five bits a letter. Rows come back byte for
/// byte as they were written: only a row exactly as `RowCodec` writes it (the shortest
/// varints, nothing after its last payload) is stored this way, a value is packed only if it
/// comes back bit for bit, and a page whose rows are not all such rows keeps them whole
/// (`NodeCodec`).
enum RowColumns {
    /// The tag of a row that has no such column (it was written before the column was added).
    static let absent: UInt8 = 15
    /// The most columns a page of rows stored by column may have.
    static let maximumColumns = 1024
    /// The most rows times columns a page may claim. A written leaf holds at most about 4,000
    /// rows (each takes a few bytes of the 8 KiB a leaf is split at), so at most about four
    /// million cells even when one row has 1,024 columns and the others none; the bound keeps a
    /// damaged page's counts from making the reader allocate and loop without limit.
    static let maximumCells = 1 << 23
    /// The most bytes a page's rows (and its packed text) may come to once decoded. A leaf is
    /// split at 8 KiB of values, one value may pass that by 2 KiB, so written pages come to
    /// about 10 KiB at most; packed numbers and text of one byte value take almost no bytes of
    /// the page, so only this bounds what a damaged page can make the reader build.
    static let maximumDecodedBytes = 1 << 20

    /// One column of one row: its tag, where its payload is in the row, and its value if it is
    /// an integer.
    struct Part {
        var tag: UInt8 = RowColumns.absent
        /// Whether the payload can be packed and written again the same (see `Packing`).
        var packable = false
        var start: Int32 = 0
        var end: Int32 = 0
        /// An integer's value; a double's bit pattern; a timestamp's zigzagged seconds; where a
        /// string's bytes start.
        var first: Int64 = 0
        /// A timestamp's nanoseconds; a string's length in bytes.
        var second: Int64 = 0
    }

    /// The kinds of values a column may store packed, each a bit of the column's mode byte:
    /// integers as offsets from their smallest; doubles that are decimals (`n / 10^e` for one
    /// `e` of the column, `n` an integer) as their `n`; timestamps as their seconds and their
    /// nanoseconds; strings in as few bits a byte as their alphabet needs (`PackedText`). A
    /// kind's values are packed when that is shorter than their payloads (for strings, than
    /// what LZ4 would leave of them).
    enum Packing: UInt8, CaseIterable {
        case integers = 1, decimals = 2, timestamps = 4, text = 8

        /// Every kind's bit.
        static let all: UInt8 = 15

        /// The kind's position among the kinds: 0, 1, 2, 3.
        var index: Int { rawValue.trailingZeroBitCount }

        /// The kind a value tagged `tag` is of, if any.
        @inline(__always)
        static func of(_ tag: UInt8) -> Packing? {
            switch tag {
            case RowCodec.Tag.zero.rawValue, RowCodec.Tag.positive.rawValue, RowCodec.Tag.negative.rawValue: .integers
            case RowCodec.Tag.double.rawValue: .decimals
            case RowCodec.Tag.timestamp.rawValue: .timestamps
            case RowCodec.Tag.string.rawValue: .text
            default: nil
            }
        }

        /// `of(tag)?.rawValue ?? 0` without a branch: a nibble a tag in one word. A column's
        /// loops ask it of every row, and the switch was an indirect jump each time.
        @inline(__always)
        static func bit(of tag: UInt8) -> UInt8 {
            UInt8(truncatingIfNeeded: bitsByTag &>> (UInt64(tag & 15) &* 4)) & 15
        }

        /// Nibble `t` holds the bit of tag `t`'s kind.
        private static var bitsByTag: UInt64 {
            let integer = UInt64(Packing.integers.rawValue), decimal = UInt64(Packing.decimals.rawValue)
            let timestamp = UInt64(Packing.timestamps.rawValue), text = UInt64(Packing.text.rawValue)
            return integer << (4 * UInt64(RowCodec.Tag.zero.rawValue)) | integer << (4 * UInt64(RowCodec.Tag.positive.rawValue))
                | integer << (4 * UInt64(RowCodec.Tag.negative.rawValue)) | decimal << (4 * UInt64(RowCodec.Tag.double.rawValue))
                | timestamp << (4 * UInt64(RowCodec.Tag.timestamp.rawValue)) | text << (4 * UInt64(RowCodec.Tag.string.rawValue))
        }
    }

    /// 10^e for the exponents of packed decimals, each exact in a Double.
    static let powersOfTen: [Double] = (0...9).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    // MARK: Encoding

    /// Appends the rows (each `ends[i]` where row `i` ends in `bytes`) a column at a time to
    /// `writer` and returns true; returns false, writing nothing, unless every row is exactly
    /// as `RowCodec` writes it.
    static func encode(bytes: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<UInt32>, into writer: inout ByteWriter) -> Bool {
        guard let (parts, width) = split(bytes: bytes, ends: ends) else { return false }
        let count = ends.count
        writer.appendVarint(UInt64(width))
        parts.withUnsafeBufferPointer { parts in
            for column in 0..<width {
                encodeColumn(UnsafeBufferPointer(rebasing: parts[(column * count)..<((column + 1) * count)]), bytes: bytes, into: &writer)
            }
        }
        return true
    }

    /// The rows' parts a column at a time (part `row` of column `c` at `c * rows + row`), for
    /// `width` columns (the most a row has), or nil if a row is not as `RowCodec` writes it.
    /// By column, each column's parts are read in a line, as `encodeColumn` reads them.
    private static func split(bytes: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<UInt32>) -> (parts: [Part], width: Int)? {
        var counts: [Int] = []
        counts.reserveCapacity(ends.count)
        var start = 0
        for end in ends {
            var position = start
            guard let count = shortestVarint(in: bytes, at: &position, end: Int(end)), count <= UInt64(maximumColumns) else { return nil }
            counts.append(Int(count))
            start = Int(end)
        }
        let width = counts.max() ?? 0
        var parts = [Part](repeating: Part(), count: ends.count * width)
        let split = parts.withUnsafeMutableBufferPointer { parts in
            var start = 0
            for row in 0..<ends.count {
                guard splitRow(bytes, start..<Int(ends[row]), columns: counts[row], into: parts, row: row, of: ends.count) else { return false }
                start = Int(ends[row])
            }
            return true
        }
        return split ? (parts, width) : nil
    }

    /// Fills the parts of row `row` (of `rows`, see `split`) with those of the row at `range`
    /// of `bytes`, which has `columns` columns; false if it is not as `RowCodec` writes it.
    private static func splitRow(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, columns: Int, into parts: UnsafeMutableBufferPointer<Part>, row: Int, of rows: Int
    ) -> Bool {
        var position = range.lowerBound + ByteWriter.varintSize(UInt64(columns))
        let tags = position
        position += (columns + 1) / 2
        guard position <= range.upperBound else { return false }
        // The spare half of the last tag byte is zero, as `RowCodec` leaves it.
        if columns & 1 == 1, bytes[position - 1] >> 4 != 0 { return false }
        for column in 0..<columns {
            let byte = bytes[tags + column / 2]
            let tag = column & 1 == 0 ? byte & 0x0f : byte >> 4
            var part = Part(tag: tag, start: Int32(position))
            switch tag {
            case RowCodec.Tag.zero.rawValue:
                part.packable = true
            case RowCodec.Tag.positive.rawValue, RowCodec.Tag.negative.rawValue:
                // Only the shortest varint of a magnitude an Int64 holds comes back the same.
                guard let magnitude = shortestVarint(in: bytes, at: &position, end: range.upperBound),
                      magnitude <= UInt64(Int64.max) else { return false }
                if tag == RowCodec.Tag.positive.rawValue {
                    guard magnitude > 0 else { return false }
                    part.first = Int64(magnitude)
                } else {
                    part.first = ~Int64(magnitude)
                }
                part.packable = true
            case RowCodec.Tag.double.rawValue:
                guard position + 8 <= range.upperBound else { return false }
                part.first = Int64(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)))
                part.packable = true
                position += 8
            case RowCodec.Tag.timestamp.rawValue:
                var end = position
                if let seconds = shortestVarint(in: bytes, at: &end, end: range.upperBound),
                   let nanoseconds = shortestVarint(in: bytes, at: &end, end: range.upperBound), nanoseconds <= UInt64(Int64.max) {
                    (part.first, part.second, part.packable) = (Int64(bitPattern: seconds), Int64(nanoseconds), true)
                    position = end
                } else {
                    guard let length = payloadLength(tag: tag, in: bytes, at: position, end: range.upperBound) else { return false }
                    position += length
                }
            case RowCodec.Tag.string.rawValue:
                var end = position
                // Only a shortest length varint comes back the same from packed text.
                if let length = shortestVarint(in: bytes, at: &end, end: range.upperBound), length <= UInt64(range.upperBound - end) {
                    (part.first, part.second, part.packable) = (Int64(end), Int64(length), true)
                    position = end + Int(length)
                } else {
                    guard let length = payloadLength(tag: tag, in: bytes, at: position, end: range.upperBound) else { return false }
                    position += length
                }
            default:
                guard let length = payloadLength(tag: tag, in: bytes, at: position, end: range.upperBound) else { return false }
                position += length
            }
            part.end = Int32(position)
            parts[column &* rows &+ row] = part
        }
        return position == range.upperBound
    }

    /// Writes one column: `parts` are its rows' parts.
    private static func encodeColumn(_ parts: UnsafeBufferPointer<Part>, bytes: UnsafeRawBufferPointer, into writer: inout ByteWriter) {
        let rows = parts.count
        @inline(__always) func part(_ row: Int) -> Part { parts[row] }
        var kinds = KindSurvey()
        for part in parts { kinds.add(part, bytes: bytes) }
        // Each kind's numbers, packed, if that saves bytes; the payloads of all its rows else.
        var packs: UInt8 = 0
        var sections = ByteWriter()
        for kind in Packing.allCases {
            let start = sections.count
            guard kinds.write(kind, of: parts, bytes: bytes, to: &sections) else { continue }
            if sections.count - start < kinds.storedBytes(kind) {
                packs |= kind.rawValue
            } else {
                sections.bytes.removeLast(sections.count - start)
            }
        }
        @inline(__always) func isPacked(_ tag: UInt8) -> Bool { packs & Packing.bit(of: tag) != 0 }
        let tags = PackedTags.form(count: rows) { part($0).tag }
        writer.append(packs | tags.rawValue << 4)
        PackedTags.write(tags, count: rows, to: &writer) { part($0).tag }
        sections.bytes.withUnsafeBytes { writer.append($0) }
        var payloadBytes = 0
        for row in 0..<rows where !isPacked(part(row).tag) { payloadBytes += Int(part(row).end - part(row).start) }
        writer.appendVarint(UInt64(payloadBytes))
        for row in 0..<rows {
            let part = part(row)
            guard !isPacked(part.tag), part.end > part.start else { continue }
            writer.append(UnsafeRawBufferPointer(rebasing: bytes[Int(part.start)..<Int(part.end)]))
        }
    }

    /// What one pass over a column's parts learns of each packable kind: how many values,
    /// their payloads' bytes, whether all can be packed, and for doubles the exponent that
    /// makes them integers.
    private struct KindSurvey {
        /// How many values of a kind, their payloads' bytes, and whether one cannot be packed.
        struct Kind {
            var count = 0
            var payloadBytes = 0
            var unpackable = false
        }

        var integers = Kind(), decimals = Kind(), timestamps = Kind(), strings = Kind()
        /// The largest of each double's smallest exponent so far; nil once one has none.
        var exponent: Int? = 0
        var text = PackedText.Survey()

        subscript(kind: Packing) -> Kind {
            switch kind {
            case .integers: integers
            case .decimals: decimals
            case .timestamps: timestamps
            case .text: strings
            }
        }

        /// What the kind's values take stored as payloads, once LZ4 has compressed the page:
        /// their bytes, less (for text) the repeats LZ4 would find.
        func storedBytes(_ kind: Packing) -> Int {
            kind == .text ? self[kind].payloadBytes - text.repeated : self[kind].payloadBytes
        }

        @inline(__always)
        mutating func add(_ part: Part, bytes: UnsafeRawBufferPointer) {
            @inline(__always) func count(_ kind: inout Kind) {
                kind.count &+= 1
                kind.payloadBytes &+= Int(part.end &- part.start)
                if !part.packable { kind.unpackable = true }
            }
            switch Packing.of(part.tag) {
            case .integers?: count(&integers)
            case .timestamps?: count(&timestamps)
            case .text?:
                count(&strings)
                guard part.packable else { return }
                let start = Int(part.first)
                text.add(
                    payload: UnsafeRawBufferPointer(rebasing: bytes[Int(part.start)..<Int(part.end)]),
                    text: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + Int(part.second))]))
            case .decimals?:
                count(&decimals)
                guard let current = exponent else { return }
                // Most doubles of a column share an exponent: one check at the current one.
                if decimal(of: part.first, exponent: current) != nil { return }
                exponent = ((current + 1)..<powersOfTen.count).first { decimal(of: part.first, exponent: $0) != nil }
            case nil: return
            }
        }

        /// Writes `kind`'s section for `parts` and returns true, or returns false (writing
        /// nothing) if the column has no value of the kind or one that cannot be packed.
        func write(_ kind: Packing, of parts: UnsafeBufferPointer<Part>, bytes: UnsafeRawBufferPointer, to writer: inout ByteWriter) -> Bool {
            let count = self[kind].count
            guard count > 0, !self[kind].unpackable else { return false }
            if kind == .text {
                guard text.alphabetCount <= PackedText.maximumAlphabet else { return false }
                var strings: [UnsafeRawBufferPointer] = []
                strings.reserveCapacity(count)
                for part in parts where part.tag == RowCodec.Tag.string.rawValue {
                    strings.append(UnsafeRawBufferPointer(rebasing: bytes[Int(part.first)..<Int(part.first + part.second)]))
                }
                PackedText.write(strings, alphabet: text.alphabet, to: &writer)
                return true
            }
            // The kind's numbers in row order: one array each, no copy of the parts.
            var first: [Int64] = [], second: [Int64] = []
            first.reserveCapacity(count)
            if kind == .timestamps { second.reserveCapacity(count) }
            for part in parts where Packing.bit(of: part.tag) == kind.rawValue {
                switch kind {
                case .integers: first.append(part.first)
                case .decimals:
                    // A double checked at a smaller exponent need not come back the same at this one.
                    guard let exponent, let integer = decimal(of: part.first, exponent: exponent) else { return false }
                    first.append(integer)
                case .timestamps:
                    first.append(part.first)
                    second.append(part.second)
                case .text: break
                }
            }
            if kind == .decimals { writer.append(UInt8(exponent!)) }
            PackedNumbers.write(first, to: &writer)
            if kind == .timestamps { PackedNumbers.write(second, to: &writer) }
            return true
        }
    }

    /// The integer `n` with `Double(n) / 10^exponent` bit for bit the double whose bit
    /// pattern is `bits`, if there is one below 2^53 in magnitude.
    static func decimal(of bits: Int64, exponent: Int) -> Int64? {
        let value = Double(bitPattern: UInt64(bitPattern: bits))
        let scaled = (value * powersOfTen[exponent]).rounded()
        guard scaled.isFinite, abs(scaled) < 9_007_199_254_740_992 else { return nil }
        let integer = Int64(scaled)
        return (Double(integer) / powersOfTen[exponent]).bitPattern == value.bitPattern ? integer : nil
    }

    // MARK: Decoding

    /// One column as stored: its rows' tags, its packed numbers, its other payloads.
    private struct StoredColumn {
        var tags: [UInt8]
        var packs: UInt8 = 0
        var integers: [Int64] = []
        var decimalExponent = 0
        var decimals: [Int64] = []
        var seconds: [Int64] = []
        var nanoseconds: [Int64] = []
        var textLengths: [Int64] = []
        var text: [UInt8] = []
        var payloads: UnsafeRawBufferPointer
        /// How far the rows read so far have used the packed numbers and the payloads.
        var nextInteger = 0, nextDecimal = 0, nextTimestamp = 0, nextText = 0, nextTextByte = 0
        var nextPayload = 0

        var isUsedUp: Bool {
            nextPayload == payloads.count && nextInteger == integers.count && nextDecimal == decimals.count && nextTimestamp == seconds.count
                && nextText == textLengths.count
        }
    }

    /// Reads `count` rows stored a column at a time, and returns them as rows back to back
    /// with where each ends. The rows must end the page unless `endingThePage` is false. The
    /// bytes keep the room they were written into: a caller that keeps them fits them
    /// (`fitted(_:)`), one that copies them need not.
    ///
    /// The rows are written into memory sized beforehand (`UnsafeByteWriter`), from columns
    /// reached through a pointer: every cache miss of a leaf pays for this, and appending to
    /// arrays checked their capacity and uniqueness at every byte.
    static func decode(_ reader: inout ByteReader, count: Int, endingThePage: Bool = true) throws -> (ends: [UInt32], bytes: [UInt8]) {
        let width = try reader.readLength(limit: maximumColumns)
        // A column of one tag takes two bytes whatever its rows, so the bytes no longer bound
        // the cells a page can claim.
        guard count * width <= maximumCells else { throw reader.corrupted("claims \(count) rows of \(width) columns") }
        var columns: [StoredColumn] = []
        columns.reserveCapacity(width)
        var textBytes = 0
        for _ in 0..<width {
            columns.append(try readColumn(&reader, rows: count))
            textBytes += columns[columns.count - 1].text.count
            guard textBytes <= maximumDecodedBytes else { throw reader.corrupted("packs more text than a page holds") }
        }
        guard reader.isAtEnd || !endingThePage else { throw reader.corrupted("has stray bytes after its columns") }
        var ends: [UInt32] = []
        ends.reserveCapacity(count)
        let room = decodedRoom(of: columns, rows: count)
        let bytes = try columns.withUnsafeMutableBufferPointer { columns in
            try UnsafeByteWriter.bytes(maximum: room) { writer in
                for row in 0..<count {
                    try appendRow(row, of: columns, to: &writer, reader: reader)
                    guard writer.count <= maximumDecodedBytes else { throw reader.corrupted("holds rows longer than a page holds") }
                    ends.append(UInt32(writer.count))
                }
            }
        }
        guard columns.allSatisfy(\.isUsedUp) else { throw reader.corrupted("has a column with values no row uses") }
        return (ends, bytes)
    }

    /// The room the rows of `columns` may need once decoded: what each row's column count and
    /// tags, each packed value at its longest and every payload could take, but no more than
    /// `maximumDecodedBytes` and one row past it, so that a damaged page that claims many
    /// cells makes the reader allocate no more than a page's rows. `decode` stops after the
    /// row that passes `maximumDecodedBytes`.
    ///
    /// Every varint is counted at ten bytes, the room `UnsafeByteWriter.appendVarint` asks;
    /// and the room is at least 16 bytes, so that it has an address when there are no rows.
    private static func decodedRoom(of columns: [StoredColumn], rows: Int) -> Int {
        let tagBytes = (columns.count + 1) / 2
        var all = rows * (10 + tagBytes)
        var oneRow = 10 + tagBytes
        for column in columns {
            all += column.payloads.count + column.integers.count * 10 + column.decimals.count * 8
                + column.seconds.count * 20 + column.textLengths.count * 10 + column.text.count
            oneRow += 30 + column.payloads.count + column.text.count
        }
        return max(16, min(all, maximumDecodedBytes + oneRow))
    }

    /// `bytes`, copied into an array of its own length if its room is a quarter larger: a
    /// decoded leaf stays in the page cache, which counts its bytes, not its room.
    static func fitted(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.capacity > bytes.count + bytes.count / 4 else { return bytes }
        return bytes.withUnsafeBufferPointer { [UInt8]($0) }
    }

    private static func readColumn(_ reader: inout ByteReader, rows: Int) throws -> StoredColumn {
        let mode = try reader.readByte()
        let packs = mode & Packing.all
        guard mode >> 6 == 0, let form = PackedTags.Form(rawValue: mode >> 4) else {
            throw reader.corrupted("has a column stored in an unknown way (\(mode))")
        }
        let tags = try PackedTags.read(form, count: rows, from: &reader)
        // How many rows have each tag, counted without a branch; a tag past 15 shows in `high`.
        var rowsByTag = InlineArray<16, Int>(repeating: 0)
        var high: UInt8 = 0
        for tag in tags {
            rowsByTag[unchecked: Int(tag & 15)] &+= 1
            high |= tag
        }
        guard high < 16 else { throw reader.corrupted("has an unknown tag \(tags.first { $0 >= 16 } ?? high)") }
        var counts = InlineArray<4, Int>(repeating: 0)
        for tag in 0..<16 where rowsByTag[tag] > 0 {
            guard tag <= Int(RowCodec.Tag.list.rawValue) || tag == Int(absent) else { throw reader.corrupted("has an unknown tag \(tag)") }
            if let kind = Packing.of(UInt8(tag)) { counts[kind.index] += rowsByTag[tag] }
        }
        var column = StoredColumn(tags: tags, packs: packs, payloads: UnsafeRawBufferPointer(start: nil, count: 0))
        for kind in Packing.allCases where packs & kind.rawValue != 0 {
            let count = counts[kind.index]
            switch kind {
            case .integers: column.integers = try PackedNumbers.read(count, from: &reader)
            case .decimals:
                column.decimalExponent = Int(try reader.readByte())
                guard column.decimalExponent < powersOfTen.count else { throw reader.corrupted("has decimals of exponent \(column.decimalExponent)") }
                column.decimals = try PackedNumbers.read(count, from: &reader)
            case .timestamps:
                column.seconds = try PackedNumbers.read(count, from: &reader)
                column.nanoseconds = try PackedNumbers.read(count, from: &reader)
            case .text:
                (column.textLengths, column.text) = try PackedText.read(count, from: &reader)
            }
        }
        column.payloads = try reader.readBytes(try reader.readLength(limit: reader.remaining))
        return column
    }

    /// Appends row `row`, put together from its columns, to `writer`.
    private static func appendRow(
        _ row: Int, of columns: UnsafeMutableBufferPointer<StoredColumn>, to writer: inout UnsafeByteWriter, reader: ByteReader
    ) throws {
        var count = 0
        while count < columns.count && columns[count].tags[row] != absent { count += 1 }
        for column in count..<columns.count where columns[column].tags[row] != absent {
            throw reader.corrupted("has a row with a column after one it lacks")
        }
        writer.appendVarint(UInt64(count))
        var column = 0
        while column < count {
            let high = column + 1 < count ? columns[column + 1].tags[row] : 0
            writer.append(columns[column].tags[row] | high << 4)
            column += 2
        }
        for column in 0..<count {
            let tag = columns[column].tags[row]
            let packed = Packing.bit(of: tag) & columns[column].packs
            if packed != 0 {
                try appendPacked(Packing(rawValue: packed).unsafelyUnwrapped, tag: tag, of: &columns[column], to: &writer, reader: reader)
                continue
            }
            let payloads = columns[column].payloads
            let start = columns[column].nextPayload
            guard let length = payloadLength(tag: tag, in: payloads, at: start, end: payloads.count) else {
                throw reader.corrupted("has a column whose values run past their end")
            }
            if length > 0 { writer.append(UnsafeRawBufferPointer(rebasing: payloads[start..<(start + length)])) }
            columns[column].nextPayload = start + length
        }
    }

    /// Appends the payload of the next packed value of `kind` in `column`, tagged `tag`.
    @inline(__always)
    private static func appendPacked(
        _ kind: Packing, tag: UInt8, of column: inout StoredColumn, to writer: inout UnsafeByteWriter, reader: ByteReader
    ) throws {
        switch kind {
        case .integers:
            let value = column.integers[column.nextInteger]
            column.nextInteger += 1
            switch tag {
            case RowCodec.Tag.zero.rawValue where value == 0: break
            case RowCodec.Tag.positive.rawValue where value > 0: writer.appendVarint(UInt64(value))
            case RowCodec.Tag.negative.rawValue where value < 0: writer.appendVarint(UInt64(~value))
            default: throw reader.corrupted("has an integer \(value) that does not match its tag \(tag)")
            }
        case .decimals:
            let value = Double(column.decimals[column.nextDecimal]) / powersOfTen[column.decimalExponent]
            column.nextDecimal += 1
            writer.appendUInt64(value.bitPattern)
        case .timestamps:
            let nanoseconds = column.nanoseconds[column.nextTimestamp]
            guard nanoseconds >= 0 else { throw reader.corrupted("has a negative count of nanoseconds") }
            writer.appendVarint(UInt64(bitPattern: column.seconds[column.nextTimestamp]))
            writer.appendVarint(UInt64(nanoseconds))
            column.nextTimestamp += 1
        case .text:
            let length = Int(column.textLengths[column.nextText])
            let start = column.nextTextByte
            writer.appendVarint(UInt64(length))
            column.text.withUnsafeBytes { writer.append(UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)])) }
            column.nextText += 1
            column.nextTextByte = start + length
        }
    }

    // MARK: Payloads

    /// The length of the payload of a value tagged `tag` at `offset` of `bytes`, or nil if it
    /// runs past `end` (or the tag is unknown).
    static func payloadLength(tag: UInt8, in bytes: UnsafeRawBufferPointer, at offset: Int, end: Int) -> Int? {
        var position = offset
        switch tag {
        case 0, 1, 2, 3: return 0
        case 4, 5, 12: guard varint(in: bytes, at: &position, end: end) != nil else { return nil }
        case 6: position += 4
        case 7: position += 8
        case 11: position += 16
        case 10: guard varint(in: bytes, at: &position, end: end) != nil, varint(in: bytes, at: &position, end: end) != nil else { return nil }
        case 8, 9, 13:
            guard let length = varint(in: bytes, at: &position, end: end), length <= UInt64(end - position) else { return nil }
            position += Int(length)
        default: return nil
        }
        return position <= end ? position - offset : nil
    }

    /// The varint at `position`, moving past it; nil if it runs past `end` or ten bytes.
    private static func varint(in bytes: UnsafeRawBufferPointer, at position: inout Int, end: Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < end && shift < 70 {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7f) &<< shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }

    /// A varint that is the shortest encoding of its value (so that writing the value again
    /// gives the same bytes), or nil.
    @inline(__always)
    private static func shortestVarint(in bytes: UnsafeRawBufferPointer, at position: inout Int, end: Int) -> UInt64? {
        // One byte, the usual length: always the shortest.
        if position < end, bytes[position] < 0x80 {
            position += 1
            return UInt64(bytes[position - 1])
        }
        let start = position
        guard let value = varint(in: bytes, at: &position, end: end), position - start == ByteWriter.varintSize(value) else { return nil }
        return value
    }
}
