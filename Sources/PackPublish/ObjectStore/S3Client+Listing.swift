/// Paginated listings (ListMultipartUploads, ListParts, …), every one through `list`: a store that says "truncated"
/// for ever, hands back a marker it gave before, or says "truncated" without saying where to go on, is an error naming
/// the listing and the bucket, never an endless loop of requests.
extension S3Client {
    /// The most pages one listing may take. S3 sends up to 1,000 entries a page, so this is a million open uploads of
    /// one key or ten times S3's 10,000 parts per upload: far beyond any real listing, and a few seconds of requests
    /// against a store that never ends one.
    public static let maxListingPages = 1_000

    /// One page's verdict: the query items that ask for the next page (its markers, none empty), or nil when the
    /// listing is done; an empty list for a truncated page without markers.
    typealias NextPage = [(name: String, value: String)]?

    /// Reads the listing `what` of `key` page by page: `query` asks for the first page, `page` reads each answer's text
    /// and returns the markers of the next. Returns false when the store answers 404 and `goneIfMissing` (an upload
    /// completed or aborted meanwhile), or the first page with a status in `unlisted` (a listing the store or the
    /// credentials do not allow); any other status than 200 is a refusal.
    func list(_ what: String, key: String, query: [(name: String, value: String)], goneIfMissing: Bool = false,
              unlisted: Set<Int> = [], page: (Substring) throws -> NextPage) throws -> Bool {
        var markers: [(name: String, value: String)] = []
        var seen: Set<String> = []
        for number in 1...Self.maxListingPages {
            let response = try send("GET", key: key, query: query + markers, keep: 4 << 20)
            if response.head.status == 404 && goneIfMissing { return false }
            if number == 1 && unlisted.contains(response.head.status) { return false }
            guard response.head.status == 200 else { throw refusal("\(what) in bucket \(bucket)", response) }
            guard let next = try page(Substring(decoding: response.body, as: UTF8.self)) else { return true }
            let named = next.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            guard !next.isEmpty else {
                throw PublishError.objectStore("\(what) in bucket \(bucket): the store says page \(number) is truncated but gives no marker to continue from; rerun, or check the store")
            }
            guard seen.insert(named).inserted else {
                throw PublishError.objectStore("\(what) in bucket \(bucket): the store answered page \(number) with a marker it gave before, so the listing would never end; stopped (check the store)")
            }
            markers = next
        }
        throw PublishError.objectStore("\(what) in bucket \(bucket): the store's listing goes on past \(Self.maxListingPages) pages; stopped (check the store)")
    }
}
