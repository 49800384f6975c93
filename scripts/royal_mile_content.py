"""Text and facts of the Royal Mile example pack, written for packtool from ../shared/content/ research notes.

Everything a visitor reads or hears is here, in one place, so a historian can review the words without reading the
generator. Coordinates are WGS84 (±10–15 m, from HES/Canmore grid references); bearings are degrees true.
"""

PACK = {
    "id": "royal-mile",
    "title": "Edinburgh, the Royal Mile, c. 1824",
    "city": "Edinburgh",
    "language": "en-GB",
    "geofenceRadius": 30,
    "area": {"south": 55.9460, "west": -3.2020, "north": 55.9550, "east": -3.1700},
    "access": {
        "freeStops": ["01-castle-esplanade"],
        "products": {
            "cityPack": {"productId": "uk.example.walks.royalmile.citypack"},
            "tripPass": {"productId": "uk.example.walks.trippass72", "hours": 72},
        },
    },
    "sizeBudget": 250_000_000,
}

NLS_TOWNS = "https://maps.nls.uk/towns/"
CC_BY = "https://creativecommons.org/licenses/by/4.0/"
PDM = "https://creativecommons.org/publicdomain/mark/1.0/"
RS_INC = "http://rightsstatements.org/vocab/InC/1.0/"
RS_INC_EDU = "http://rightsstatements.org/vocab/InC-EDU/1.0/"
RS_UND = "http://rightsstatements.org/vocab/UND/1.0/"

# Sources. URLs point at the holding institution's record or collection page; every copy is used as `reference`
# or `derived` (the placeholder plates embed none of their pixels).
SOURCES = {
    "gordon-1647": dict(title="Edinodunensis Tabulam: bird's-eye view of Edinburgh", creator="James Gordon of Rothiemay",
                        date="1647", medium="engraved bird's-eye view", institution="National Library of Scotland",
                        url=NLS_TOWNS, rights=CC_BY, use="derived"),
    "edgar-1765": dict(title="Plan of the City and Castle of Edinburgh", creator="William Edgar", date="1742 (1765 issue)",
                       medium="engraved plan", institution="National Library of Scotland", url=NLS_TOWNS, rights=CC_BY,
                       use="derived"),
    "kirkwood-1817": dict(title="Plan of the City of Edinburgh", creator="Robert Kirkwood", date="1817",
                          medium="engraved plan", institution="National Library of Scotland", url=NLS_TOWNS,
                          rights=CC_BY, use="derived"),
    "wood-1828": dict(title="Plan of the City of Edinburgh (Town Atlas of Scotland, after Thomas Brown 1820)",
                      creator="John Wood", date="1828", medium="engraved plan", institution="National Library of Scotland",
                      url=NLS_TOWNS, rights=CC_BY, use="derived"),
    "os-1849": dict(title="Ordnance Survey large-scale town plan of Edinburgh, 1:1056", creator="Ordnance Survey",
                    date="surveyed 1849, published 1852-1853", medium="engraved map sheets",
                    institution="National Library of Scotland", url=NLS_TOWNS, rights=CC_BY, use="derived"),
    "nasmyth-1824": dict(title="The High Street and the Lawn Market, Edinburgh", creator="Alexander Nasmyth", date="1824",
                         medium="oil on canvas", institution="Royal Collection Trust", url="https://www.rct.uk/collection",
                         rights=RS_INC, use="reference"),
    "shepherd-1829": dict(title="Modern Athens! Displayed in a Series of Views", creator="Thomas Hosmer Shepherd",
                          date="1829", medium="steel engravings", institution="Edinburgh Libraries (Capital Collections)",
                          url="https://www.capitalcollections.org.uk/", rights=RS_UND, use="reference"),
    "skene-1820s": dict(title="Watercolour views of Old Edinburgh", creator="James Skene of Rubislaw", date="1817-1830s",
                        medium="watercolour", institution="Edinburgh Central Library (Capital Collections)",
                        url="https://www.capitalcollections.org.uk/", rights=RS_UND, use="reference"),
    "hill-adamson-1845": dict(title="Calotype views of Edinburgh", creator="David Octavius Hill and Robert Adamson",
                              date="1843-1847", medium="salted paper prints from calotype negatives",
                              institution="University of Edinburgh", url="https://collections.ed.ac.uk/", rights=CC_BY,
                              use="derived"),
    "grant-1880": dict(title="Old and New Edinburgh", creator="James Grant", date="c. 1880-1883",
                       medium="illustrated book", institution="Internet Archive (digitised copy)",
                       url="https://archive.org/search?query=%22old+and+new+edinburgh%22", rights=PDM, use="reference"),
    "chambers-fires-1824": dict(title="Account of the great fires in Edinburgh, November 1824", creator="Robert Chambers",
                                date="1824", medium="printed account", institution="Internet Archive (digitised copy)",
                                url="https://archive.org/search?query=chambers+fires+edinburgh+1824", rights=PDM,
                                use="reference"),
    "wilson-1848": dict(title="Memorials of Edinburgh in the Olden Time", creator="Daniel Wilson", date="1848",
                        medium="illustrated book", institution="Internet Archive (digitised copy)",
                        url="https://archive.org/search?query=%22memorials+of+edinburgh%22", rights=PDM, use="reference"),
}


def hes(lb, name):
    """A Historic Environment Scotland listed-building record, used for reference only (HES terms are restrictive)."""
    return dict(title=f"Listed building record {lb}: {name}", creator="Historic Environment Scotland", date="2026",
                medium="designation record", institution="Historic Environment Scotland",
                url=f"https://portal.historicenvironment.scot/designation/{lb}", rights=RS_INC_EDU, use="reference")


SOURCES["hes-lb29233"] = hes("LB29233", "Gladstone's Land, 477B Lawnmarket")
SOURCES["hes-lb27381"] = hes("LB27381", "St Giles' Cathedral")
SOURCES["hes-lb27552"] = hes("LB27552", "Tron Kirk")
SOURCES["hes-lb29033"] = hes("LB29033", "John Knox House")
SOURCES["hes-lb27582"] = hes("LB27582", "Canongate Tolbooth")
SOURCES["hes-lb28022"] = hes("LB28022", "Palace of Holyroodhouse")
SOURCES["canmore-52153"] = dict(title="Canmore site record 52153: Netherbow Port", creator="Historic Environment Scotland",
                                date="2026", medium="database record", institution="Historic Environment Scotland",
                                url="https://canmore.org.uk/site/52153", rights=RS_INC_EDU, use="reference")

# Each stop: anchor, view (bearing, distance to target), eras, mask regions and the story, one sentence per line.
# Region polygons are in normalised 16:9 frame coordinates, origin top left, listed open (the generator closes them).
STOPS = [
    dict(
        id="01-castle-esplanade", title="The Castle Esplanade",
        anchor=(55.94873, -3.19744), bearing=258.9, distance=80, target="Castle gatehouse", fov=64, pitch=3,
        eras=[
            dict(year=1647, label="The Spur, 1647", sources=["gordon-1647"], regions=[
                dict(id="spur-outline", level="conjecture", sources=["gordon-1647"],
                     polygon=[(0.08, 0.52), (0.46, 0.47), (0.50, 0.70), (0.10, 0.78)],
                     note="Gordon's bird's-eye view shows the Spur only in perspective; no measured plan of its footprint survives, so this outline is our estimate.")]),
            dict(year=1824, label="The new esplanade, 1824", default=True, sources=["kirkwood-1817", "wood-1828"], regions=[
                dict(id="parapet-line", level="inferred", sources=["kirkwood-1817"],
                     polygon=[(0.02, 0.66), (0.40, 0.62), (0.41, 0.70), (0.02, 0.75)],
                     note="The north parapet is drawn from Kirkwood's 1817 plan; its height and coping are inferred from later photographs.")]),
            dict(year=1880, label="Monuments and reservoir, 1880", sources=["os-1849", "grant-1880"], regions=[]),
        ],
        story=[
            "Welcome to the Castle Esplanade, at the top of the Royal Mile, where our walk begins.",
            "Face the castle gatehouse, about eighty metres ahead of you, to the west.",
            "In eighteen twenty four, the open ground around you was newly finished.",
            "Between eighteen sixteen and eighteen twenty, the old parade ground was walled and made into the esplanade you stand on.",
            "The ground had first been levelled for drill in seventeen fifty three.",
            "Go back further, and this approach looked very different.",
            "In the fifteen forties, the castle's defenders built a great artillery work here, called the Spur.",
            "James Gordon of Rothiemay drew it on his bird's-eye view of the town in sixteen forty seven.",
            "Three years later, in sixteen fifty, the Spur was pulled down.",
            "No measured plan of its footprint survives, so its outline in our reconstruction is hatched as conjecture.",
            "Tap the hatched area to read why we are unsure.",
            "By eighteen eighty, the esplanade had gathered monuments.",
            "A statue of the Duke of York was raised in eighteen thirty nine.",
            "A Celtic cross to the men of the seventy eighth Highlanders followed in eighteen sixty one.",
            "Behind you, on Castlehill, the city built a reservoir in eighteen forty nine and eighteen fifty, to feed water down the ridge.",
            "When you are ready, walk east down Castlehill into the Lawnmarket, about two hundred and forty metres.",
            "The next story begins opposite a tall merchant's house on your left.",
        ],
    ),
    dict(
        id="02-gladstones-land", title="Gladstone's Land, Lawnmarket",
        anchor=(55.94930, -3.19374), bearing=356.2, distance=20, target="Gladstone's Land front", fov=70, pitch=12,
        eras=[
            dict(year=1647, label="Gledstanes' land, 1647", sources=["gordon-1647", "hes-lb29233"], regions=[
                dict(id="upper-storeys", level="conjecture", sources=["gordon-1647"],
                     polygon=[(0.30, 0.05), (0.70, 0.05), (0.70, 0.30), (0.30, 0.30)],
                     note="Gordon shows the street front only as small roofs; the gables and dormers above the fourth storey are our conjecture.")]),
            dict(year=1824, label="After the Weigh-house, 1824", default=True, sources=["nasmyth-1824", "kirkwood-1817"], regions=[
                dict(id="neighbour-fronts", level="inferred", sources=["nasmyth-1824"],
                     polygon=[(0.72, 0.10), (0.98, 0.12), (0.98, 0.80), (0.72, 0.80)],
                     note="Nasmyth's 1824 painting shows these fronts at a distance; their window pattern is inferred from the surviving buildings.")]),
        ],
        story=[
            "You are standing in the Lawnmarket, facing north towards a tall, narrow house with arches at street level.",
            "This is Gladstone's Land, about twenty metres in front of you.",
            "A house stood on this plot by about fifteen fifty.",
            "In sixteen seventeen, the merchant Thomas Gledstanes bought it.",
            "By sixteen twenty one he had given it a new stone frontage onto the street.",
            "That is why the building carries his name, in a later spelling.",
            "The Lawnmarket was a market street, where cloth and linen were sold from booths.",
            "At its western head, where the West Bow climbed up from the Grassmarket, stood the Weigh-house, where goods were weighed.",
            "The Weigh-house was rebuilt in sixteen sixty.",
            "By eighteen twenty four it had just been demolished, and the head of the street had opened out.",
            "Alexander Nasmyth painted the High Street and the Lawnmarket in that same year.",
            "His picture is one of our best guides to this view.",
            "Even so, the fronts of the neighbouring houses in our reconstruction are inferred, because the painting shows them only at a distance.",
            "Those areas are hatched; tap them to read what we based them on.",
            "George the Fourth Bridge, just to the south, was not begun until eighteen twenty seven.",
            "So in eighteen twenty four this was still a street on a narrow ridge, with steep closes falling away on either side.",
            "Now walk on east along the High Street, towards the crown steeple of Saint Giles.",
            "The next stop is by the Mercat Cross, about two hundred and forty metres ahead.",
        ],
    ),
    dict(
        id="03-mercat-cross", title="St Giles and the Mercat Cross",
        anchor=(55.94979, -3.19004), bearing=234.7, distance=27, target="St Giles and the Mercat Cross", fov=70, pitch=10,
        eras=[
            dict(year=1647, label="Tolbooth and Luckenbooths, 1647", sources=["gordon-1647", "wilson-1848"], regions=[
                dict(id="luckenbooths", level="conjecture", sources=["gordon-1647", "wilson-1848"],
                     polygon=[(0.05, 0.35), (0.38, 0.30), (0.40, 0.72), (0.05, 0.76)],
                     note="The Luckenbooths' street fronts are known from later descriptions; their 1647 roofline is our conjecture.")]),
            dict(year=1824, label="Before the Great Fire, 1824", default=True, sources=["kirkwood-1817", "chambers-fires-1824", "hes-lb27381"], regions=[
                dict(id="south-side-tenements", level="inferred", sources=["chambers-fires-1824", "kirkwood-1817"],
                     polygon=[(0.62, 0.15), (0.97, 0.18), (0.97, 0.74), (0.62, 0.70)],
                     note="These tenements burned in November 1824; their heights are inferred from written accounts of the fire and the 1817 plan.")]),
            dict(year=1880, label="Ashlar and restoration, 1880", sources=["os-1849", "grant-1880"], regions=[]),
        ],
        story=[
            "Stand here on the High Street and look south west, towards Saint Giles and the Mercat Cross.",
            "The Mercat Cross was where royal proclamations were read, and where merchants met to trade.",
            "It has moved more than once.",
            "Around fifteen ninety it stood on the south side of the street, and in sixteen seventeen it was moved.",
            "By sixteen forty seven, Parliament House was newly finished behind Saint Giles.",
            "The Old Tolbooth and a row of buildings called the Luckenbooths crowded the church's north west side.",
            "In seventeen fifty six, the Cross itself was taken down.",
            "Across the street, the Royal Exchange was built between seventeen fifty three and seventeen sixty one.",
            "In eighteen seventeen, the Tolbooth and the Luckenbooths were finally removed.",
            "So by eighteen twenty four the church stood clear, though its walls were still of old, rough rubble.",
            "In November of that year, from the fifteenth to the seventeenth, the Great Fire broke out in Old Assembly Close.",
            "It destroyed much of the south side of the High Street, and the east side of Parliament Close.",
            "Our reconstruction shows the street just before the fire.",
            "The heights of the tenements that burned are hatched, because we know them only from written accounts.",
            "Between eighteen twenty nine and eighteen thirty three, Saint Giles was recased in smooth, cut stone.",
            "By eighteen eighty, a restoration of the church led by William Chambers was under way.",
            "Now continue east along the High Street, about one hundred and fifty metres, to the church with the tall stone spire.",
        ],
    ),
    dict(
        id="04-tron-kirk", title="The Tron Kirk",
        anchor=(55.95028, -3.18776), bearing=193.0, distance=21, target="Tron Kirk steeple", fov=70, pitch=15,
        eras=[
            dict(year=1765, label="Timber spire, 1765", sources=["edgar-1765", "hes-lb27552"], regions=[
                dict(id="timber-spire", level="inferred", sources=["edgar-1765"],
                     polygon=[(0.44, 0.02), (0.56, 0.02), (0.55, 0.30), (0.45, 0.30)],
                     note="The timber and lead spire is known from small engraved views; its exact profile is inferred.")]),
            dict(year=1824, label="The night of the fire, 1824", default=True, sources=["chambers-fires-1824", "kirkwood-1817"], regions=[
                dict(id="spire-framing", level="conjecture", sources=["chambers-fires-1824"],
                     polygon=[(0.43, 0.02), (0.57, 0.02), (0.56, 0.32), (0.44, 0.32)],
                     note="How the spire was framed before it burned on 16 November 1824 is not recorded; this shape is our conjecture.")]),
            dict(year=1880, label="The stone spire, 1880", sources=["os-1849", "hill-adamson-1845"], regions=[]),
        ],
        story=[
            "Across the street, to the south, stands the Tron Kirk.",
            "Around fifteen ninety there was no church here, only tenements and the narrow closes between them.",
            "The church was built between sixteen thirty seven and sixteen forty seven, to a design by John Mylne.",
            "It took its name from the tron, the public weighing beam that stood close by.",
            "Its steeple was still unfinished in about sixteen forty five.",
            "By seventeen sixty five the tower carried a spire of timber sheathed in lead, and a bell cast in sixteen seventy three.",
            "In seventeen eighty five, the side bays of the church were cut back for new streets.",
            "On the sixteenth of November, eighteen twenty four, the Great Fire reached this corner.",
            "Sparks caught the wooden spire, and it burned down to the stone tower.",
            "Our default view shows the church in eighteen twenty four, with the spire still standing.",
            "How that spire was framed is not recorded, so it is hatched as conjecture.",
            "A new stone spire, designed by R and R Dickson, was completed in eighteen twenty eight.",
            "That is the spire you see today, and the one in our eighteen eighty view.",
            "Walk on east down the High Street, about one hundred and ninety metres, to where the street narrows at the Netherbow.",
        ],
    ),
    dict(
        id="05-netherbow", title="The Netherbow",
        anchor=(55.95054, -3.18473), bearing=70.2, distance=310, target="Canongate through the Netherbow Port site",
        fov=60, pitch=0,
        eras=[
            dict(year=1647, label="The Netherbow Port, 1647", sources=["gordon-1647", "canmore-52153"], regions=[
                dict(id="port-steeple", level="conjecture", sources=["gordon-1647", "canmore-52153"],
                     polygon=[(0.36, 0.05), (0.64, 0.05), (0.64, 0.45), (0.36, 0.45)],
                     note="A rebuilding of 1606 is reported but unconfirmed; the steeple's shape follows Gordon's small view and is our conjecture.")]),
            dict(year=1824, label="An open junction, 1824", default=True, sources=["kirkwood-1817", "hes-lb29033"], regions=[]),
            dict(year=1880, label="Wynds cleared, 1880", sources=["os-1849", "grant-1880"], regions=[
                dict(id="cleared-wynds", level="inferred", sources=["os-1849"],
                     polygon=[(0.70, 0.40), (0.98, 0.38), (0.98, 0.80), (0.70, 0.82)],
                     note="The new frontages after the clearances of 1865 and 1867 are inferred from the Ordnance Survey plan and later views.")]),
        ],
        story=[
            "You have reached the Netherbow, the old eastern edge of Edinburgh.",
            "Look east, down the slope into the Canongate.",
            "For centuries a gate stood across this street, the Netherbow Port.",
            "It was rebuilt in fifteen seventy one.",
            "Anyone passing between Edinburgh and the separate burgh of the Canongate went through it.",
            "Gordon of Rothiemay's view of sixteen forty seven shows the Port with a steeple above the arch.",
            "Some accounts say it was rebuilt again in sixteen oh six, but we could not confirm that.",
            "So the steeple's shape is hatched as conjecture.",
            "In seventeen sixty four the Port was demolished, to let traffic through.",
            "By eighteen twenty four, this was an open junction.",
            "Behind you, on your left, is the house with timber galleries that tradition links with the reformer John Knox.",
            "That tradition is recorded from seventeen eighty four.",
            "The house was restored in eighteen fifty.",
            "By eighteen eighty, many of the crowded wynds nearby had been cleared, in eighteen sixty five and eighteen sixty seven.",
            "Now walk down the Canongate, about three hundred metres, to the Tolbooth with its great clock.",
        ],
    ),
    dict(
        id="06-canongate-tolbooth", title="The Canongate Tolbooth",
        anchor=(55.95136, -3.18011), bearing=10.3, distance=20, target="Canongate Tolbooth tower", fov=70, pitch=14,
        eras=[
            dict(year=1647, label="Council house and jail, 1647", sources=["gordon-1647", "hes-lb27582"], regions=[
                dict(id="forestair", level="conjecture", sources=["gordon-1647"],
                     polygon=[(0.20, 0.55), (0.42, 0.55), (0.42, 0.90), (0.20, 0.90)],
                     note="The form of the outside stair in 1647 is not shown clearly in any source; this is our conjecture.")]),
            dict(year=1824, label="Still a burgh tolbooth, 1824", default=True, sources=["kirkwood-1817", "shepherd-1829"], regions=[]),
            dict(year=1880, label="Restored, 1880", sources=["os-1849", "grant-1880"], regions=[
                dict(id="restored-details", level="inferred", sources=["grant-1880"],
                     polygon=[(0.55, 0.10), (0.80, 0.10), (0.80, 0.50), (0.55, 0.50)],
                     note="Details renewed in the restorations of 1875 and 1879 are inferred from Grant's engraving.")]),
        ],
        story=[
            "Look north, across the Canongate, at the Tolbooth with its turreted tower and its projecting clock.",
            "The Canongate was a burgh of its own, separate from Edinburgh.",
            "This was its council house, its court and its jail.",
            "The tower was built in fifteen ninety one.",
            "In sixteen forty seven it still served as the burgh's council house and prison.",
            "In sixteen ninety, the Canongate Kirk was built just to the east.",
            "So by seventeen sixty five, church and tolbooth stood side by side, as they do today.",
            "In eighteen twenty four the Canongate was still an independent burgh, and the Tolbooth was still its seat.",
            "The Canongate only joined the city of Edinburgh in eighteen fifty six.",
            "The building was restored in eighteen seventy five, and again in eighteen seventy nine.",
            "Our plates show the frontage in each era.",
            "Where later restorers changed the details, the earlier form is inferred, and hatched.",
            "Walk on down the Canongate, nearly four hundred metres, towards the gates of the palace.",
        ],
    ),
    dict(
        id="07-abbey-strand", title="Abbey Strand and Holyroodhouse",
        anchor=(55.95272, -3.17454), bearing=80.1, distance=122, target="Palace of Holyroodhouse, west front", fov=64, pitch=4,
        eras=[
            dict(year=1765, label="Bruce's palace, 1765", sources=["edgar-1765", "hes-lb28022"], regions=[
                dict(id="abbey-roof", level="inferred", sources=["edgar-1765"],
                     polygon=[(0.72, 0.20), (0.96, 0.22), (0.96, 0.50), (0.72, 0.50)],
                     note="The stone roof of 1758-1760 collapsed in 1768; its outline is inferred from descriptions, not from any drawing we hold.")]),
            dict(year=1824, label="Ruin and sanctuary, 1824", default=True, sources=["kirkwood-1817", "shepherd-1829"], regions=[]),
            dict(year=1880, label="Gatehouse and fountain, 1880", sources=["os-1849", "grant-1880"], regions=[]),
        ],
        story=[
            "You have reached the foot of the Canongate, at the Abbey Strand.",
            "Look east, to the west front of the Palace of Holyroodhouse.",
            "The round-towered block on the left was built for James the Fifth in fifteen thirty two.",
            "It belonged to an earlier palace begun by James the Fourth.",
            "Between sixteen seventy one and sixteen seventy eight, Sir William Bruce and the mason Robert Mylne rebuilt the palace around a courtyard.",
            "They matched the old tower with a new one at the other end of the front.",
            "Beside the palace stands the nave of Holyrood Abbey.",
            "It was given a new stone roof between seventeen fifty eight and seventeen sixty, and in seventeen sixty eight that roof fell in.",
            "So in eighteen twenty four the abbey was a roofless ruin, much as it is today.",
            "The ground from here to the palace was also a sanctuary for debtors.",
            "People who owed money could live within its bounds, safe from arrest for debt.",
            "The letters S set into the road mark the edge of the sanctuary.",
            "The fountain in the forecourt was built in eighteen fifty nine, and the gatehouse in front of the palace in eighteen sixty one.",
            "In eighteen eighty, imprisonment for debt was ended, and with it the sanctuary's purpose.",
            "This is the end of our walk, about one and a half kilometres from the castle.",
            "Thank you for walking the Royal Mile with us.",
        ],
    ),
]

REVIEWER = {"id": "example-historian", "name": "Example Historian (placeholder reviewer)", "role": "historian"}
