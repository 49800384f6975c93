"""`packtool preview` of the example pack, opened from file:// in headless Chromium (Selenium and chromedriver) and
checked against the pack's own files with independent tools: heif-info for each plate's size, ffprobe for each story's
duration, the WebVTT files' timing lines for the cue counts, and this file's own Sutherland–Hodgman clip and shoelace
area for which conjecture regions the 9:16 crop shows. The route page lists the stops in walking order with a map mark
each; no page logs a console error; every plate decodes at its HEIC's size in every era and crop, and the era chips
switch it; the mask draws one polygon per region in view, a click on one shows its note and the toggle hides the
hatching; the audio lasts as long as ffprobe says, its text track loads every cue and the spoken cue is marked; a drag
moves the compare divider; every image has alt text and every control a label. Screenshots of the route page and a
stop page go to .build/preview-screenshots/ for a person to look at. The plates' progress bar shows on a terminal
(a pseudo-terminal) and not in a log."""
import json
import math
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # run as a file (python -m unittest Tests/python/test_preview.py) as well as by discovery
    sys.path.insert(0, HERE)
import required  # noqa: E402
from test_presign import packtool  # noqa: E402

try:
    from selenium import webdriver
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    webdriver = None

REPO = os.path.dirname(os.path.dirname(HERE))
PACK = os.path.join(REPO, "scenes", "royal-mile")
SCREENSHOTS = os.path.join(REPO, ".build", "preview-screenshots")
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CROPS = ("16x9", "9x16")
WIDTH, HEIGHT = 1280, 1000
POLL = 0.02  # seconds between WebDriverWait's checks (its default, half a second, would dominate the run time)
EARTH_RADIUS = 6_371_008.8


CACHE = None  # the plate cache the runs here share (PACKTOOL_CACHE_DIR), never the user's


def setUpModule():
    global CACHE
    CACHE = tempfile.mkdtemp(prefix="packtool-plate-cache-")


def tearDownModule():
    shutil.rmtree(CACHE, ignore_errors=True)


def preview_env():
    return dict(os.environ, PACKTOOL_CACHE_DIR=CACHE)


def read_json(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as f:
        return json.load(f)


def load_stops():
    """The pack's stops in walking order, each with its scene.json, uncertainty.json and folder."""
    stops = []
    for folder in read_json(PACK, "pack.json")["route"]:
        path = os.path.join(PACK, "stops", folder)
        stops.append({"folder": folder, "path": path, "scene": read_json(path, "scene.json"),
                      "mask": read_json(path, "uncertainty.json")})
    return stops


def clip(polygon, left, top, right, bottom):
    """Sutherland–Hodgman: the polygon clipped to an axis-aligned rectangle."""
    def x_at(a, b, x):
        return x, a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0])

    def y_at(a, b, y):
        return a[0] + (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]), y

    ring = [tuple(p) for p in polygon]
    for inside, cross in ((lambda p: p[0] >= left, lambda a, b: x_at(a, b, left)),
                          (lambda p: p[0] <= right, lambda a, b: x_at(a, b, right)),
                          (lambda p: p[1] >= top, lambda a, b: y_at(a, b, top)),
                          (lambda p: p[1] <= bottom, lambda a, b: y_at(a, b, bottom))):
        out = []
        for previous, current in zip(ring[-1:] + ring[:-1], ring):
            if inside(current) != inside(previous):
                out.append(cross(previous, current))
            if inside(current):
                out.append(current)
        ring = out
    return ring


def area(ring):
    """Shoelace formula."""
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:] + ring[:1]))) / 2


def expected_regions(stop, year, crop):
    """Region id → note for the regions an era shows in a crop: all on 16:9, those overlapping the crop on 9:16."""
    regions = next((era["regions"] for era in stop["mask"]["eras"] if era["year"] == year), [])
    if crop == "9x16":
        r = stop["scene"]["crops"]["9x16"]
        regions = [region for region in regions
                   if area(clip(region["polygon"], r["x"], r["y"], r["x"] + r["width"], r["y"] + r["height"])) > 0]
    return {region["id"]: region["note"] for region in regions}


def stop_default_era(stop):
    """The index of the era scene.json marks as default (the first when none is)."""
    return next((i for i, era in enumerate(stop["scene"]["eras"]) if era.get("default")), 0)


def heic_size(path):
    out = subprocess.run(["heif-info", path], check=True, capture_output=True, text=True).stdout
    width, height = re.search(r"^image: (\d+)x(\d+)", out, re.M).groups()
    return int(width), int(height)


def audio_duration(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                         check=True, capture_output=True, text=True).stdout
    return float(out)


def cue_count(path):
    with open(path, encoding="utf-8") as f:
        return sum("-->" in line for line in f)


def metres_between(a, b):
    """Haversine distance between two scene.json anchors."""
    lat1, lon1, lat2, lon2 = map(math.radians, (a["lat"], a["lon"], b["lat"], b["lon"]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS * math.asin(math.sqrt(h))


def png_size(path):
    with open(path, "rb") as f:
        header = f.read(24)
    return struct.unpack(">II", header[16:24])


def missing_tools():
    missing = [] if webdriver else ["selenium (Python package in .build/venv)"]
    missing += [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    missing += [tool for tool in ("heif-info", "ffprobe") if not shutil.which(tool)]
    return missing


# Elements a person cannot name: images without alt text and controls without a label, as "tag#id.class" strings.
UNLABELLED_SCRIPT = """
const describe = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.getAttribute("class") ? "." + e.getAttribute("class") : "");
const named = (e) => (e.getAttribute("aria-label") || "").trim() !== "";
const labelled = (e) => named(e) || e.closest("label") !== null || (e.id && document.querySelector('label[for="' + e.id + '"]') !== null);
const checks = [
  ["img", (e) => (e.getAttribute("alt") || "").trim() !== ""],
  ["button", (e) => e.textContent.trim() !== "" || named(e)],
  ["select, input, textarea", labelled],
  ["[role=slider], audio, polygon.region", named],
];
const bad = [];
let checked = 0;
for (const [selector, ok] of checks) {
  for (const e of document.querySelectorAll(selector)) { checked += 1; if (!ok(e)) bad.push(describe(e)); }
}
return [checked, bad];
"""

PLATE_READY = "const p = document.getElementById('plate'); return p.complete && p.naturalWidth > 0;"
IMAGES_READY = "return Array.from(document.images).every((img) => img.complete && img.naturalWidth > 0);"


class PreviewInChromium(unittest.TestCase):
    """The example pack's preview site in headless Chromium, one browser for the class."""

    @classmethod
    def setUpClass(cls):
        missing = missing_tools()
        if missing:
            raise required.missing("missing: " + ", ".join(missing) + " (make test installs them)")
        cls.stops = load_stops()
        cls.site = tempfile.mkdtemp(prefix="packtool-preview-")
        try:
            run = subprocess.run([packtool(), "preview", PACK, "--out", cls.site, "--quiet"], capture_output=True, text=True,
                                 env=preview_env())
            if run.returncode != 0:
                raise AssertionError(f"packtool preview exited {run.returncode}: {run.stderr}{run.stdout}")
            options = webdriver.ChromeOptions()
            for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={WIDTH},{HEIGHT}",
                             "--autoplay-policy=no-user-gesture-required"):
                options.add_argument(argument)
            options.binary_location = CHROMIUM
            options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
            cls.driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
        except BaseException:
            shutil.rmtree(cls.site, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        shutil.rmtree(cls.site, ignore_errors=True)

    # Helpers

    def open(self, page):
        """Loads a page of the site, dropping the browser log of the pages before it."""
        self.driver.get_log("browser")
        self.driver.get("file://" + os.path.join(self.site, page))

    def open_stop(self, stop):
        self.open(f"stops/{stop['folder']}.html")
        self.wait_for(PLATE_READY, "the first plate to load")

    def until(self, condition, what):
        """Waits (5 s at most) for a condition, a function of no arguments."""
        WebDriverWait(self.driver, 5, poll_frequency=POLL).until(lambda _: condition(), f"timed out waiting for {what}")

    def wait_for(self, script, what):
        self.until(lambda: self.js(script), what)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def css(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def click(self, selector):
        self.css(selector)[0].click()

    def show(self, era, crop):
        """Clicks an era chip and a crop button, and waits for that plate to load."""
        self.click(f'button.era-chip[data-era="{era}"]')
        self.click(f'button.crop-button[data-crop="{crop}"]')
        self.wait_for(PLATE_READY, f"era {era}'s {crop} plate to load")

    def states(self, stop):
        """Every era and crop of a stop page just opened (so on 16:9), shown in turn with one click each (the crops
        go back and forth): yields (era index, era, crop) once that plate has loaded."""
        crops = list(CROPS)
        for i, era in enumerate(stop["scene"]["eras"]):
            self.click(f'button.era-chip[data-era="{i}"]')
            for n, crop in enumerate(crops):
                if n:
                    self.click(f'button.crop-button[data-crop="{crop}"]')
                self.wait_for(PLATE_READY, f"era {i}'s {crop} plate to load")
                yield i, era, crop
            crops.reverse()

    def load_thumbnails(self):
        """The route page's thumbnails, each scrolled into view (they load lazily) and waited for."""
        thumbnails = self.css("img.thumb")
        for thumbnail in thumbnails:
            self.js("arguments[0].scrollIntoView({block: 'center'});", thumbnail)
            self.until(lambda: self.js("return arguments[0].complete;", thumbnail), thumbnail.get_attribute("src"))
        return thumbnails

    def pressed_chips(self):
        return self.js("return Array.from(document.querySelectorAll('button.era-chip'), (chip) => chip.getAttribute('aria-pressed'));")

    def severe_log(self):
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def screenshot(self, name):
        """The whole page as a PNG in SCREENSHOTS, taken at the page's full height once its images have loaded."""
        height, chrome = self.js("return [document.body.scrollHeight, window.outerHeight - window.innerHeight];")
        self.driver.set_window_size(WIDTH, height + chrome)
        try:
            self.wait_for(IMAGES_READY, f"the images of {name} to load")
            os.makedirs(SCREENSHOTS, exist_ok=True)
            path = os.path.join(SCREENSHOTS, name)
            self.assertTrue(self.driver.save_screenshot(path))
        finally:
            self.driver.set_window_size(WIDTH, HEIGHT)
        print(f"\nscreenshot: {path}", flush=True)
        self.assertEqual(png_size(path)[1], height, f"{name} is not the whole page")

    # The route page

    def test_the_route_page_lists_the_stops_in_walking_order_each_with_its_leg_and_a_mark_on_the_map(self):
        self.open("index.html")
        rows = self.css("ol.stops > li.stop-row")
        self.assertEqual([row.get_attribute("data-stop") for row in rows], [stop["folder"] for stop in self.stops])
        marks = self.css("svg#route-map g.stop-mark")
        self.assertEqual([mark.get_attribute("data-stop") for mark in marks], [stop["folder"] for stop in self.stops])
        for i, (stop, row, mark) in enumerate(zip(self.stops, rows, marks)):
            with self.subTest(stop=stop["folder"]):
                href = f"stops/{stop['folder']}.html"
                self.assertEqual(len(row.find_elements(By.CSS_SELECTOR, f'a[href="{href}"]')), 1)
                self.assertTrue(os.path.isfile(os.path.join(self.site, href)), href)
                self.assertEqual(len(row.find_elements(By.CSS_SELECTOR, "img.thumb")), 1)
                leg = row.find_element(By.CSS_SELECTOR, ".leg").text
                if i == 0:
                    self.assertEqual(leg, "start of the walk")
                else:
                    value, unit, previous = re.match(r"([\d.]+) (k?m) from stop (\d+)", leg).groups()
                    metres = float(value) * (1000 if unit == "km" else 1)
                    self.assertEqual(int(previous), i)
                    expected = metres_between(self.stops[i - 1]["scene"]["anchor"], stop["scene"]["anchor"])
                    self.assertAlmostEqual(metres, expected, delta=1 if unit == "m" else 50, msg=leg)
                self.assertEqual(len(mark.find_elements(By.CSS_SELECTOR, "circle.anchor")), 1)
                view = self.css(f'svg#route-map g.stop-view[data-stop="{stop["folder"]}"]')
                self.assertEqual(len(view), 1)
                for part in ("path.fov", "line.bearing"):
                    self.assertEqual(len(view[0].find_elements(By.CSS_SELECTOR, part)), 1, part)
                has_target = "target" in stop["scene"]["view"]
                targets = self.css(f'svg#route-map g.targets path.target[data-stop="{stop["folder"]}"]')
                self.assertEqual(len(targets), int(has_target))
        points = self.css("svg#route-map polyline.route-line")[0].get_attribute("points").split()
        self.assertEqual(len(points), len(self.stops))

    # Every page

    def test_no_page_logs_a_console_error_after_switching_eras_and_crops(self):
        self.open("index.html")
        self.load_thumbnails()
        self.assertEqual(self.severe_log(), [], "index.html")
        for stop in self.stops:
            with self.subTest(stop=stop["folder"]):
                self.open_stop(stop)
                for _ in self.states(stop):
                    pass
                self.assertEqual(self.severe_log(), [])

    def test_every_image_has_alt_text_and_every_control_a_label_in_every_era_and_crop(self):
        self.open("index.html")
        checked, unlabelled = self.js(UNLABELLED_SCRIPT)
        self.assertGreaterEqual(checked, len(self.stops), "the route page's thumbnails were not found")
        self.assertEqual(unlabelled, [], "index.html")
        for stop in self.stops:
            self.open_stop(stop)
            for i, _, crop in self.states(stop):
                with self.subTest(stop=stop["folder"], era=i, crop=crop):
                    checked, unlabelled = self.js(UNLABELLED_SCRIPT)
                    self.assertGreater(checked, 0)
                    self.assertEqual(unlabelled, [])

    # Plates and eras

    def test_every_plate_decodes_at_its_heic_size_in_every_era_and_crop_and_every_thumbnail_decodes(self):
        for stop in self.stops:
            self.open_stop(stop)
            for i, era, crop in self.states(stop):
                with self.subTest(stop=stop["folder"], year=era["year"], crop=crop):
                    natural = self.js("const p = document.getElementById('plate'); return [p.naturalWidth, p.naturalHeight];")
                    self.assertEqual(tuple(natural), heic_size(os.path.join(stop["path"], era["layers"][crop])))
        self.open("index.html")
        thumbnails = self.load_thumbnails()
        self.assertEqual(len(thumbnails), len(self.stops))
        for thumbnail in thumbnails:
            self.assertGreater(self.js("return arguments[0].naturalWidth;", thumbnail), 0, thumbnail.get_attribute("src"))

    def test_each_era_chip_shows_its_own_plate_and_is_the_only_one_pressed_starting_from_the_default_era(self):
        for stop in self.stops:
            with self.subTest(stop=stop["folder"]):
                self.open_stop(stop)
                eras = stop["scene"]["eras"]
                default = next(i for i, era in enumerate(eras) if era.get("default"))
                self.assertEqual(self.pressed_chips(), ["true" if i == default else "false" for i in range(len(eras))])
                first = self.css("img#plate")[0].get_attribute("src")
                for crop in CROPS:
                    self.click(f'button.crop-button[data-crop="{crop}"]')
                    sources = []
                    for i in range(len(eras)):
                        self.click(f'button.era-chip[data-era="{i}"]')
                        self.wait_for(PLATE_READY, f"era {i}'s {crop} plate to load")
                        self.assertEqual(self.pressed_chips(), ["true" if j == i else "false" for j in range(len(eras))])
                        sources.append(self.css("img#plate")[0].get_attribute("src"))
                    self.assertEqual(len(set(sources)), len(eras), f"{crop}: {sources}")
                    if crop == "16x9":
                        self.assertEqual(sources[default], first, "the page did not open on the default era's plate")

    # The conjecture mask

    def test_each_era_and_crop_draws_one_polygon_per_mask_region_in_view_and_a_click_shows_its_note(self):
        for stop in self.stops:
            self.open_stop(stop)
            for i, era, crop in self.states(stop):
                with self.subTest(stop=stop["folder"], year=era["year"], crop=crop):
                    expected = expected_regions(stop, era["year"], crop)
                    polygons = self.css("svg#mask g#regions polygon.region")
                    self.assertEqual(len(polygons), len(expected))
                    self.assertEqual({p.get_attribute("data-region") for p in polygons}, set(expected))
                    for polygon in polygons:
                        polygon.click()
                        note = self.css("#note .note-text")
                        self.assertEqual([n.text for n in note], [expected[polygon.get_attribute("data-region")]])

    def test_a_regions_note_goes_when_the_era_the_crop_or_the_hatching_changes(self):
        stop = self.stops[0]
        self.open_stop(stop)
        for change in (lambda: self.show(0, "16x9"), lambda: self.show(0, "9x16"), lambda: self.click("input#mask-toggle")):
            self.show(stop_default_era(stop), "16x9")
            if not self.css("input#mask-toggle")[0].is_selected():
                self.click("input#mask-toggle")
            self.css("svg#mask g#regions polygon.region")[0].click()
            self.assertEqual(len(self.css("#note .note-text")), 1)
            change()
            self.assertEqual(self.css("#note .note-text"), [], "a note stayed up for a region no longer shown")
            self.assertEqual(len(self.css("#note .note-hint")), 1)

    def test_the_16_9_plate_outlines_where_the_9_16_plate_is_cut_from(self):
        for stop in self.stops[:3]:
            with self.subTest(stop=stop["folder"]):
                self.open_stop(stop)
                crop = stop["scene"]["crops"]["9x16"]
                outline = self.css("svg#mask rect.crop-outline")
                self.assertEqual(len(outline), 1)
                width, height = (int(v) for v in self.js("return document.getElementById('mask').getAttribute('viewBox')").split()[2:])
                for attribute, expected in (("x", crop["x"] * width), ("y", crop["y"] * height),
                                            ("width", crop["width"] * width), ("height", crop["height"] * height)):
                    self.assertAlmostEqual(float(outline[0].get_attribute(attribute)), expected, delta=0.01)
                self.show(stop_default_era(stop), "9x16")
                self.assertEqual(self.css("svg#mask rect.crop-outline"), [], "no outline on the 9:16 plate itself")

    def test_unticking_the_mask_toggle_hides_the_hatching_and_ticking_it_shows_it_again(self):
        stop = self.stops[0]
        self.open_stop(stop)
        mask, toggle = self.css("svg#mask")[0], self.css("input#mask-toggle")[0]
        self.assertTrue(toggle.is_selected())
        self.assertTrue(mask.is_displayed())
        toggle.click()
        self.assertFalse(toggle.is_selected())
        self.assertFalse(mask.is_displayed())
        self.show(0, "9x16")
        self.assertFalse(mask.is_displayed(), "the hatching came back on switching era and crop")
        toggle.click()
        self.assertTrue(mask.is_displayed())

    # The story

    def test_the_story_lasts_as_long_as_ffprobe_says_and_its_track_loads_every_cue(self):
        for stop in self.stops:
            with self.subTest(stop=stop["folder"]):
                self.open(f"stops/{stop['folder']}.html")
                self.wait_for("return document.getElementById('story-audio').readyState >= 1", "the audio's metadata")
                self.wait_for("return document.querySelector('#story-audio track').readyState === 2", "the text track to load")
                source, duration, cues = self.js("const a = document.getElementById('story-audio');"
                                                 "return [a.currentSrc, a.duration, a.textTracks[0].cues.length];")
                self.assertEqual(source, "file://" + os.path.join(self.site, "media", stop["folder"], "story.m4a"))
                self.assertAlmostEqual(duration, audio_duration(os.path.join(stop["path"], "story.m4a")), delta=0.1)
                expected = cue_count(os.path.join(stop["path"], "story.vtt"))
                self.assertEqual(cues, expected)
                self.assertEqual(len(self.css("ol#transcript li.cue[data-start][data-end]")), expected)

    def test_the_cue_being_spoken_is_marked_current_as_the_story_plays_on(self):
        for stop in self.stops:
            with self.subTest(stop=stop["folder"]):
                self.open(f"stops/{stop['folder']}.html")
                self.wait_for("return document.getElementById('story-audio').readyState >= 1", "the audio's metadata")
                cues = self.css("ol#transcript li.cue")
                for index in (1, len(cues) - 1):
                    cue = cues[index]
                    middle = (float(cue.get_attribute("data-start")) + float(cue.get_attribute("data-end"))) / 2
                    self.js("document.getElementById('story-audio').currentTime = arguments[0];", middle)
                    self.until(lambda: "current" in cue.get_attribute("class").split(), f"cue {index + 1} to be marked at {middle:.2f} s")
                    current = [i for i, c in enumerate(cues) if "current" in c.get_attribute("class").split()]
                    self.assertEqual(current, [index])

    # The compare view

    def test_dragging_across_the_compare_view_moves_the_divider_and_the_clip_with_it(self):
        self.open_stop(self.stops[0])
        compare = self.css("div#compare")[0]
        handle = self.css("#compare-handle[role=slider]")[0]
        self.js("arguments[0].scrollIntoView({block: 'center'});", compare)
        width = compare.size["width"]

        def divider():
            clip_path = self.js("return getComputedStyle(document.getElementById('compare-over')).clipPath;")
            right = float(re.match(r"inset\(0px ([\d.]+)%", clip_path).group(1))
            return int(handle.get_attribute("aria-valuenow")), right

        for start, end in ((0.25, 0.75), (0.8, 0.3)):
            with self.subTest(drag=f"{start:.0%} to {end:.0%}"):
                ActionChains(self.driver).move_to_element_with_offset(compare, round((start - 0.5) * width), 0).click_and_hold().perform()
                pressed, pressed_clip = divider()
                ActionChains(self.driver).move_by_offset(round((end - start) * width), 0).release().perform()
                dragged, dragged_clip = divider()
                self.assertAlmostEqual(pressed, start * 100, delta=1)
                self.assertAlmostEqual(dragged, end * 100, delta=1)
                self.assertAlmostEqual(pressed_clip, 100 - start * 100, delta=1)
                self.assertAlmostEqual(dragged_clip, 100 - end * 100, delta=1)

    # For a person to look at

    def test_screenshots_of_the_route_page_and_a_stop_page(self):
        self.open("index.html")
        self.screenshot("route.png")
        self.open_stop(self.stops[0])
        self.css("polygon.region")[0].click()  # the first stop's default era has a region: show its note too
        self.screenshot("stop.png")


class PreviewProgress(unittest.TestCase):
    """The plates' progress bar is drawn on a terminal (a pseudo-terminal here) and nowhere else."""

    def run_preview(self, stderr_on_terminal):
        out = tempfile.mkdtemp(prefix="packtool-preview-progress-")
        self.addCleanup(shutil.rmtree, out, True)
        master, slave = pty.openpty()
        try:
            process = subprocess.Popen([packtool(), "preview", PACK, "--out", os.path.join(out, "site")], stdout=subprocess.DEVNULL, env=preview_env(),
                                       stderr=slave if stderr_on_terminal else subprocess.PIPE)
            os.close(slave)
            slave = None
            seen = b""
            if stderr_on_terminal:
                while True:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:  # the terminal's other end closed: the run is over
                        break
                    if not chunk:
                        break
                    seen += chunk
            else:
                seen = process.stderr.read()
            self.assertEqual(process.wait(), 0)
            return seen.decode()
        finally:
            os.close(master)
            if slave is not None:
                os.close(slave)

    def test_a_terminal_sees_a_bar_redrawn_up_to_every_plate(self):
        seen = self.run_preview(stderr_on_terminal=True)
        self.assertIn("\rplates [", seen.replace("\x1b[2K", ""))
        self.assertIn("] 40/40", seen)

    def test_a_log_gets_no_bar(self):
        self.assertEqual(self.run_preview(stderr_on_terminal=False), "")


if __name__ == "__main__":
    unittest.main()
