import Foundation
import TidingsModel

/// Decode + classify of a push payload, against the bare `JSONSerialization` parse of the same bytes.
enum PayloadBench {
    static func run() throws {
        for (name, bytes) in [("1 KB MoEngage payload", typicalPayload), ("4 KB native payload", largePayload)] {
            let data = Data(bytes)
            var sink = 0
            let decode = try Measure.nanosecondsPerCall(iterations: 20_000) {
                let payload = try PushPayload.decode(bytes)
                sink &+= payload.kind == .alert ? 1 : 0
            }
            let baseline = try Measure.nanosecondsPerCall(iterations: 20_000) {
                let object = try JSONSerialization.jsonObject(with: data)
                sink &+= (object as? [String: Any])?.count ?? 0
            }
            precondition(sink != 0)
            Measure.report("decode+classify, \(name) (\(bytes.count) B)", decode, "ns")
            Measure.report("JSONSerialization parse, \(name) (baseline)", baseline, "ns")
            Measure.report("ratio decode+classify / baseline", decode / baseline, "x")
        }
    }

    /// A MoEngage rich push as the seeds describe it, about 1 KB.
    static let typicalPayload: [UInt8] = Array(
        """
        {"aps":{"alert":{"title":"Weekend sale: 30% off everything","subtitle":"Only until Sunday",\
        "body":"Tap to browse the collection picked for you. Free delivery on orders over 50 EUR."},\
        "badge":1,"sound":"default","category":"MOE_PUSH_TEMPLATE","mutable-content":1,\
        "thread-id":"sales"},\
        "app_extra":{"moe_deeplink":"shopapp://collections/weekend?utm_source=push&utm_campaign=wk48",\
        "screenName":"CollectionViewController","screenData":{"collection":"weekend","sort":"price",\
        "page":"1"}},\
        "moengage":{"silentPush":0,"cid":"6371bd91e4c1a2b3c4d5e6f7_F_T_CA_AB_0_P_0_L_0_ios",\
        "app_id":"DAO6UGZ73D9RTK8B5W96TPYN","moe_campaign_id":"6371bd91e4c1a2b3c4d5e6f7",\
        "moe_campaign_name":"Weekend sale week 48","inbox_expiry":"1799999999",\
        "webUrl":"https://shop.example.com/collections/weekend","couponCode":"WEEKEND30",\
        "media-attachment":"https://cdn.example.com/push/weekend-sale-hero-1038x1038.jpg",\
        "media-type":"image"},\
        "order_reference":"A-1029384756","customer_tier":"gold"}
        """.utf8)

    /// A native payload near Apple's 4 KB limit: buttons, media and a large custom data object.
    static let largePayload: [UInt8] = {
        var data: [String] = []
        var index = 0
        var text = ""
        repeat {
            let item = "{\"sku\":\"SKU-\(100_000 + index)\",\"price\":\(19 + index).99,\"qty\":\(index % 5 + 1)}"
            data.append("\"item_\(index)\":\(item)")
            index += 1
            text = """
                {"aps":{"alert":{"title":"Your order has shipped","body":"It arrives tomorrow between 9 and 12."},\
                "mutable-content":1,"sound":"default","category":"tidings.b.order","thread-id":"orders",\
                "interruption-level":"time-sensitive","relevance-score":0.8},\
                "tidings":{"v":1,"id":"9d1f6a0c-0d52-4f7e-9a43-3f1c2b8e7d11","cid":"order-shipped","sent":1800000000000,\
                "action":{"type":"deeplink","url":"shop://orders/A-1029384756"},\
                "buttons":[{"id":"track","title":"Track","type":"web","url":"https://shop.example.com/track/A-1029384756",\
                "in_app":true},{"id":"dismiss","title":"Later","type":"dismiss"}],\
                "media":{"url":"https://cdn.example.com/push/parcel.png","type":"image","ext":"png"},\
                "data":{\(data.joined(separator: ","))}}}
                """
        } while text.utf8.count < 3_900
        return Array(text.utf8)
    }()
}
