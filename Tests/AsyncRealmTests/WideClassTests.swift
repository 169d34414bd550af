import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// A class of more than 127 properties: its rows' column count takes two bytes.
final class WideRecord: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var p0 = 0; @Persisted var p1 = 1; @Persisted var p2 = 2; @Persisted var p3 = 3; @Persisted var p4 = 4; @Persisted var p5 = 5; @Persisted var p6 = 6; @Persisted var p7 = 7; @Persisted var p8 = 8; @Persisted var p9 = 9
    @Persisted var p10 = 10; @Persisted var p11 = 11; @Persisted var p12 = 12; @Persisted var p13 = 13; @Persisted var p14 = 14; @Persisted var p15 = 15; @Persisted var p16 = 16; @Persisted var p17 = 17; @Persisted var p18 = 18; @Persisted var p19 = 19
    @Persisted var p20 = 20; @Persisted var p21 = 21; @Persisted var p22 = 22; @Persisted var p23 = 23; @Persisted var p24 = 24; @Persisted var p25 = 25; @Persisted var p26 = 26; @Persisted var p27 = 27; @Persisted var p28 = 28; @Persisted var p29 = 29
    @Persisted var p30 = 30; @Persisted var p31 = 31; @Persisted var p32 = 32; @Persisted var p33 = 33; @Persisted var p34 = 34; @Persisted var p35 = 35; @Persisted var p36 = 36; @Persisted var p37 = 37; @Persisted var p38 = 38; @Persisted var p39 = 39
    @Persisted var p40 = 40; @Persisted var p41 = 41; @Persisted var p42 = 42; @Persisted var p43 = 43; @Persisted var p44 = 44; @Persisted var p45 = 45; @Persisted var p46 = 46; @Persisted var p47 = 47; @Persisted var p48 = 48; @Persisted var p49 = 49
    @Persisted var p50 = 50; @Persisted var p51 = 51; @Persisted var p52 = 52; @Persisted var p53 = 53; @Persisted var p54 = 54; @Persisted var p55 = 55; @Persisted var p56 = 56; @Persisted var p57 = 57; @Persisted var p58 = 58; @Persisted var p59 = 59
    @Persisted var p60 = 60; @Persisted var p61 = 61; @Persisted var p62 = 62; @Persisted var p63 = 63; @Persisted var p64 = 64; @Persisted var p65 = 65; @Persisted var p66 = 66; @Persisted var p67 = 67; @Persisted var p68 = 68; @Persisted var p69 = 69
    @Persisted var p70 = 70; @Persisted var p71 = 71; @Persisted var p72 = 72; @Persisted var p73 = 73; @Persisted var p74 = 74; @Persisted var p75 = 75; @Persisted var p76 = 76; @Persisted var p77 = 77; @Persisted var p78 = 78; @Persisted var p79 = 79
    @Persisted var p80 = 80; @Persisted var p81 = 81; @Persisted var p82 = 82; @Persisted var p83 = 83; @Persisted var p84 = 84; @Persisted var p85 = 85; @Persisted var p86 = 86; @Persisted var p87 = 87; @Persisted var p88 = 88; @Persisted var p89 = 89
    @Persisted var p90 = 90; @Persisted var p91 = 91; @Persisted var p92 = 92; @Persisted var p93 = 93; @Persisted var p94 = 94; @Persisted var p95 = 95; @Persisted var p96 = 96; @Persisted var p97 = 97; @Persisted var p98 = 98; @Persisted var p99 = 99
    @Persisted var p100 = 100; @Persisted var p101 = 101; @Persisted var p102 = 102; @Persisted var p103 = 103; @Persisted var p104 = 104; @Persisted var p105 = 105; @Persisted var p106 = 106; @Persisted var p107 = 107; @Persisted var p108 = 108; @Persisted var p109 = 109
    @Persisted var p110 = 110; @Persisted var p111 = 111; @Persisted var p112 = 112; @Persisted var p113 = 113; @Persisted var p114 = 114; @Persisted var p115 = 115; @Persisted var p116 = 116; @Persisted var p117 = 117; @Persisted var p118 = 118; @Persisted var p119 = 119
    @Persisted var p120 = 120; @Persisted var p121 = 121; @Persisted var p122 = 122; @Persisted var p123 = 123; @Persisted var p124 = 124; @Persisted var p125 = 125; @Persisted var p126 = 126; @Persisted var p127 = 127; @Persisted var p128 = 128; @Persisted var p129 = 129
    // Columns 131 and after, past the one-byte count.
    @Persisted var label = ""
    @Persisted var weight = 0.0
    @Persisted var note: String?
    @Persisted var flag = false
}

@Suite("Classes of more than 127 properties")
struct WideClassTests {
    static func records(in realm: Realm) throws -> Results<WideRecord> {
        try realm.write {
            for id in 0..<300 {
                let record = WideRecord()
                record.id = id
                record.p129 = id
                record.label = "label \(id % 7)"
                record.weight = Double(id) / 2
                record.note = id % 2 == 0 ? nil : "odd"
                record.flag = id % 3 == 0
                realm.add(record)
            }
        }
        return realm.objects(WideRecord.self)
    }

    @Test("filters, counts and aggregates over the properties past the 127th find every row's value", arguments: RealmKind.allCases)
    func queries(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [WideRecord.self]))
        let records = try Self.records(in: realm)
        #expect(records.filter("p0 == 0").count == 300)
        #expect(records.filter("p100 == 100").count == 300)
        #expect(records.filter("p129 >= 150").count == 150)
        #expect(records.filter("label == 'label 3'").count == 43)
        #expect(records.filter("label BEGINSWITH 'label'").count == 300)
        #expect(records.filter("weight > 100").count == 99)
        #expect(records.filter("note == nil").count == 150)
        #expect(records.filter("flag == true").count == 100)
        #expect(records.where { $0.p129 < 10 && $0.flag }.count == 4)
        #expect(records.sum(ofProperty: "p129") as Int == 299 * 300 / 2)
        #expect(records.sum(ofProperty: "weight") as Double == Double(299 * 300 / 2) / 2)
        #expect(records.filter("p129 BETWEEN {10, 19}").sum(ofProperty: "p129") as Int == 145)
        #expect(records.average(ofProperty: "p128") as Double? == 128)
        #expect(records.max(ofProperty: "p129") as Int? == 299)
        #expect(records.min(ofProperty: "weight") as Double? == 0)
        #expect(records.sorted(byKeyPath: "weight", ascending: false).first?.id == 299)
        #expect(records.distinct(by: ["label"]).count == 7)
    }

    @Test("objects of such a class read, write and are found by key, property by property and in order", arguments: RealmKind.allCases)
    func objects(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [WideRecord.self]))
        let records = try Self.records(in: realm)
        var total = 0
        for record in records {
            total += record.p0 + record.p127 + record.p128 + record.p129 + (record.note?.count ?? 0) + (record.flag ? 1 : 0)
        }
        #expect(total == 300 * (127 + 128) + 299 * 300 / 2 + 150 * 3 + 100)
        let record = try #require(realm.object(ofType: WideRecord.self, forPrimaryKey: 7))
        #expect(record.label == "label 0" && record.weight == 3.5 && record.note == "odd" && record.p64 == 64)
        try realm.write {
            record.p129 = -1
            record.note = nil
            record.label = String(repeating: "w", count: 300)
        }
        #expect(record.p129 == -1 && record.note == nil && record.label.count == 300)
        #expect(records.filter("p129 < 0").count == 1)
        #expect(records.filter("note == nil").count == 151)
    }
}
