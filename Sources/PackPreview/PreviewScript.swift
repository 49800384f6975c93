/// assets/preview.js: the stop page's viewer, compare slider and transcript, kept in the tool so a preview needs no file
/// beside the binary. Plain JavaScript of this project's own; it loads nothing and talks to no server.
enum PreviewScript {
    static let text = #"""
        // packtool preview: the stop page's viewer (era chips, crops, the conjecture mask and its notes), the compare slider
        // and the transcript that follows the story. Written for this project; no library, no network.
        "use strict";

        (function () {
          const dataElement = document.getElementById("stop-data");
          if (!dataElement) return;  // the route page has nothing to drive
          const data = JSON.parse(dataElement.textContent);
          // What needs the script (era chips, crop switch, mask toggle, compare slider) is written hidden: without
          // JavaScript the page shows every plate instead.
          document.querySelectorAll("[data-needs-script]").forEach((element) => { element.hidden = false; });
          const SVG = "http://www.w3.org/2000/svg";
          const state = { era: data.initialEra || 0, crop: "16x9", mask: true };

          const plate = document.getElementById("plate");
          const mask = document.getElementById("mask");
          const regions = document.getElementById("regions");
          const caption = document.getElementById("plate-caption");
          const plateError = document.getElementById("plate-error");
          const note = document.getElementById("note");
          const maskToggle = document.getElementById("mask-toggle");

          function showNote(era, region) {
            note.textContent = "";
            const title = document.createElement("p");
            title.className = "note-title";
            title.textContent = (region.level === "conjecture" ? "Conjecture" : "Inferred") + " — why we're unsure";
            const text = document.createElement("p");
            text.className = "note-text";
            text.textContent = region.note;
            note.append(title, text);
            if (region.sources.length) {
              const sources = document.createElement("p");
              sources.className = "note-sources";
              sources.textContent = "Sources: " + region.sources.join("; ");
              note.append(sources);
            }
            note.dataset.region = region.id;
          }

          // The note belongs to a region of the plate on show: it goes when the era, the crop or the hatching changes.
          function clearNote() {
            note.textContent = "";
            const hint = document.createElement("p");
            hint.className = "note-hint";
            hint.textContent = "Click or tap a hatched region to see why we're unsure.";
            note.append(hint);
            delete note.dataset.region;
          }

          function render() {
            if (!plate) return;
            clearNote();
            const era = data.eras[state.era];
            const shown = era.plates[state.crop];
            document.querySelectorAll(".era-chip").forEach((chip) => {
              chip.setAttribute("aria-pressed", String(Number(chip.dataset.era) === state.era));
            });
            document.querySelectorAll(".crop-button").forEach((button) => {
              button.setAttribute("aria-pressed", String(button.dataset.crop === state.crop));
            });
            document.getElementById("frame").dataset.crop = state.crop;
            caption.textContent = era.year + " · " + era.label + " · " + (state.crop === "16x9" ? "16:9" : "9:16")
              + (state.crop === "16x9" && data.portraitCrop ? " · dashed outline: the 9:16 crop" : "");
            regions.textContent = "";
            if (!shown.src) {
              plate.hidden = true;
              plate.removeAttribute("src");
              plate.alt = shown.alt;
              mask.style.display = "none";
              plateError.hidden = false;
              plateError.textContent = "This plate cannot be shown: " + shown.error;
              return;
            }
            plateError.hidden = true;
            plate.hidden = false;
            plate.src = shown.src;
            plate.alt = shown.alt;
            plate.width = shown.width;
            plate.height = shown.height;
            mask.setAttribute("viewBox", "0 0 " + shown.width + " " + shown.height);
            mask.style.display = state.mask ? "" : "none";
            // On the 16:9 plate, where the 9:16 plate is cut from: authors check it frames the same subject.
            if (state.crop === "16x9" && data.portraitCrop) {
              const crop = document.createElementNS(SVG, "rect");
              crop.setAttribute("class", "crop-outline");
              crop.setAttribute("x", data.portraitCrop.x * shown.width);
              crop.setAttribute("y", data.portraitCrop.y * shown.height);
              crop.setAttribute("width", data.portraitCrop.width * shown.width);
              crop.setAttribute("height", data.portraitCrop.height * shown.height);
              const title = document.createElementNS(SVG, "title");
              title.textContent = "The 9:16 crop";
              crop.append(title);
              regions.append(crop);
            }
            for (const region of era.regions[state.crop]) {
              const polygon = document.createElementNS(SVG, "polygon");
              polygon.setAttribute("points", region.points);
              polygon.setAttribute("class", "region " + region.level);
              polygon.setAttribute("fill", "url(#hatch-" + region.level + ")");
              polygon.setAttribute("tabindex", "0");
              polygon.setAttribute("role", "button");
              polygon.setAttribute("aria-label", (region.level === "conjecture" ? "Conjecture" : "Inferred") + ": " + region.note);
              polygon.dataset.region = region.id;
              const title = document.createElementNS(SVG, "title");
              title.textContent = region.note;
              polygon.append(title);
              polygon.addEventListener("click", () => showNote(era, region));
              polygon.addEventListener("keydown", (event) => {
                if (event.key === "Enter" || event.key === " ") { event.preventDefault(); showNote(era, region); }
              });
              regions.append(polygon);
            }
            renderCompare();
          }

          document.querySelectorAll(".era-chip").forEach((chip) => {
            chip.addEventListener("click", () => { state.era = Number(chip.dataset.era); render(); });
          });
          document.querySelectorAll(".crop-button").forEach((button) => {
            button.addEventListener("click", () => { state.crop = button.dataset.crop; render(); });
          });
          if (maskToggle) {
            maskToggle.addEventListener("change", () => { state.mask = maskToggle.checked; render(); });
          }

          // The compare view: the left era shows left of the divider, the right era right of it; dragging anywhere on the
          // picture moves the divider, as the app's compare gesture does.
          const compare = document.getElementById("compare");
          const under = document.getElementById("compare-under");
          const over = document.getElementById("compare-over");
          const overImage = document.getElementById("compare-over-image");
          const handle = document.getElementById("compare-handle");
          const left = document.getElementById("compare-left");
          const right = document.getElementById("compare-right");
          let position = 50;

          if (left && right) {
            const others = data.eras.map((_, i) => i).filter((i) => i !== state.era);
            left.value = String(others.length ? Math.min(...others) : 0);
            right.value = String(state.era);
            if (left.value === right.value) left.value = String((state.era + 1) % data.eras.length);
            left.addEventListener("change", renderCompare);
            right.addEventListener("change", renderCompare);
          }

          function setPosition(percent) {
            position = Math.max(0, Math.min(100, percent));
            over.style.clipPath = "inset(0 " + (100 - position) + "% 0 0)";
            handle.style.left = position + "%";
            handle.setAttribute("aria-valuenow", String(Math.round(position)));
            handle.setAttribute("aria-valuetext", Math.round(position) + "%");
          }

          function renderCompare() {
            if (!compare) return;
            const a = data.eras[Number(left.value)], b = data.eras[Number(right.value)];
            const pa = a.plates[state.crop], pb = b.plates[state.crop];
            compare.dataset.crop = state.crop;
            for (const [image, shown] of [[overImage, pa], [under, pb]]) {
              if (shown.src) { image.src = shown.src; image.width = shown.width; image.height = shown.height; }
              else image.removeAttribute("src");
              image.alt = shown.alt;
            }
            setPosition(position);
          }

          if (compare) {
            let dragging = false;
            const move = (event) => {
              const box = compare.getBoundingClientRect();
              if (box.width > 0) setPosition((event.clientX - box.left) / box.width * 100);
            };
            compare.addEventListener("pointerdown", (event) => {
              dragging = true;
              compare.setPointerCapture(event.pointerId);
              move(event);
              event.preventDefault();
            });
            compare.addEventListener("pointermove", (event) => { if (dragging) move(event); });
            const stop = (event) => {
              dragging = false;
              if (compare.hasPointerCapture(event.pointerId)) compare.releasePointerCapture(event.pointerId);
            };
            compare.addEventListener("pointerup", stop);
            compare.addEventListener("pointercancel", stop);
            handle.addEventListener("keydown", (event) => {
              const step = event.shiftKey ? 10 : 2;
              if (event.key === "ArrowLeft" || event.key === "ArrowDown") setPosition(position - step);
              else if (event.key === "ArrowRight" || event.key === "ArrowUp") setPosition(position + step);
              else if (event.key === "Home") setPosition(0);
              else if (event.key === "End") setPosition(100);
              else return;
              event.preventDefault();
            });
          }

          // The transcript follows the story: the cue being spoken is highlighted, and a cue's time plays from there.
          const audio = document.getElementById("story-audio");
          const cues = Array.from(document.querySelectorAll("#transcript .cue"));
          if (audio && cues.length) {
            let current = null;
            const follow = () => {
              const t = audio.currentTime;
              const now = cues.find((cue) => t >= Number(cue.dataset.start) && t < Number(cue.dataset.end)) || null;
              if (now === current) return;
              if (current) { current.classList.remove("current"); current.removeAttribute("aria-current"); }
              if (now) { now.classList.add("current"); now.setAttribute("aria-current", "true"); }
              current = now;
            };
            audio.addEventListener("timeupdate", follow);
            audio.addEventListener("seeked", follow);
            cues.forEach((cue) => {
              cue.querySelector(".cue-time").addEventListener("click", () => {
                audio.currentTime = Number(cue.dataset.start);
                follow();
                audio.play().catch(() => {});
              });
            });
          }

          render();
        })();

        """#
}
