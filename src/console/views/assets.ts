/**
 * The console's only stylesheet and script, served from /console/assets/ (same origin, so the
 * Content-Security-Policy needs no inline allowance). Kept as strings: no build step, no copy
 * step, nothing to forget in the Docker image.
 */
export const CONSOLE_CSS = `
:root { --fg:#1b1f24; --muted:#5b6470; --line:#d8dde3; --bg:#f6f7f9; --accent:#1f5fbf; --danger:#b42318; --ok:#067647; --warn:#b54708; }
* { box-sizing: border-box; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
body { margin: 0; line-height: 1.45; }
a { color: var(--accent); }
header.top { background: #fff; border-bottom: 1px solid var(--line); padding: .6rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
header.top .who { margin-left: auto; display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; color: var(--muted); font-size: .9rem; }
nav.main { display: flex; flex-wrap: wrap; gap: .25rem; padding: .4rem 1rem; background: #fff; border-bottom: 1px solid var(--line); }
nav.main a { padding: .35rem .6rem; border-radius: 6px; text-decoration: none; }
nav.main a[aria-current="page"] { background: #e8effa; font-weight: 600; }
main { max-width: 70rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin-bottom: 1rem; }
.card > h1:first-child, .card > h2:first-child { margin-top: 0; }
.vh { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
label.inline-label { display: inline-flex; align-items: center; gap: .35rem; font-weight: 400; }
label.inline-label select { width: auto; }
.narrow { max-width: 26rem; margin: 2rem auto; }
body.hosted .narrow { max-width: 34rem; margin: 1rem auto; }
body.hosted header.top .brand { font-size: 1.1rem; }
details.stack { display: grid; gap: .75rem; }
details.stack summary { cursor: pointer; color: var(--accent); }
.table-wrap { overflow-x: auto; -webkit-overflow-scrolling: touch; margin-bottom: 1rem; }
table { width: 100%; border-collapse: collapse; background: #fff; font-size: .92rem; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; white-space: nowrap; }
td.wrap { word-break: break-word; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
form.stack { display: grid; gap: .75rem; }
form.inline { display: inline; }
label { display: grid; gap: .25rem; font-weight: 600; font-size: .92rem; }
label .hint { font-weight: 400; color: var(--muted); }
input, select, textarea { font: inherit; padding: .5rem; border: 1px solid #aab3bd; border-radius: 6px; width: 100%; background: #fff; }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
fieldset label { display: flex; gap: .4rem; align-items: center; font-weight: 400; }
fieldset input { width: auto; }
/* A checkbox and its words: the box in a column of its own, on the first line of the words however
   they wrap (a flex row wrapped the words under the box, beside the next scope's box). */
label.check { display: grid; grid-template-columns: auto minmax(0, 1fr); column-gap: .5rem; align-items: baseline; font-weight: 400; overflow-wrap: anywhere; }
label.check input { width: auto; margin: 0; align-self: start; margin-top: .2em; }
label.check .check-text .hint { display: block; }
blockquote { margin: .25rem 0; padding-left: .6rem; border-left: 3px solid var(--line); white-space: pre-wrap; overflow-wrap: anywhere; }
ul.media-previews { list-style: none; display: flex; flex-wrap: wrap; gap: .4rem; margin: .25rem 0; padding: 0; }
ul.media-previews li.medium { max-width: 100%; }
ul.media-previews figure { margin: 0; display: grid; gap: .2rem; max-width: 14rem; font-size: .85rem; }
video.preview { width: 14rem; max-width: 100%; max-height: 14rem; border-radius: 6px; border: 1px solid var(--line); background: #000; }
li.breaks-limit img.preview, li.breaks-limit video.preview { outline: 3px solid var(--danger); outline-offset: 1px; }
ul.limit-problems { margin: .2rem 0; padding-left: 1rem; color: var(--danger); font-size: .85rem; max-width: 30rem; overflow-wrap: anywhere; }
figure.chart { margin: 0 0 .5rem; max-width: 100%; }
figure.chart svg { width: 100%; height: auto; display: block; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
figure.chart .legend { display: flex; flex-wrap: wrap; gap: .3rem .9rem; font-size: .85rem; color: var(--muted); }
figure.chart .legend span { display: inline-flex; align-items: center; gap: .3rem; }
figure.chart .legend svg.swatch { width: .7rem; height: .7rem; flex: none; border: 0; border-radius: 2px; display: inline-block; }
.chart-with-table { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; align-items: start; }
@media (max-width: 50rem) { .chart-with-table { grid-template-columns: minmax(0, 1fr); } }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem .9rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
[hidden] { display: none !important; }
ol.calendar { list-style: none; margin: .5rem 0 1rem; padding: 0; display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: .4rem; }
ol.calendar .day { padding: .4rem; margin: 0; min-height: 6rem; }
ol.calendar .day.other { background: #f2f4f7; }
ol.calendar .day.drop-over { outline: 3px dashed var(--accent); }
ol.calendar h2 { font-size: .9rem; margin: 0 0 .3rem; }
ol.calendar .entries { list-style: none; margin: 0; padding: 0; display: grid; gap: .3rem; font-size: .82rem; }
ol.calendar .slot { border: 1px dashed var(--line); border-radius: 4px; padding: .1rem .3rem; }
ol.calendar .slot.drop-over { border-color: var(--accent); background: #e8effa; }
ol.calendar .entry { border-left: 3px solid var(--accent); padding-left: .3rem; overflow-wrap: anywhere; }
ol.calendar .entry[draggable="true"] { cursor: grab; }
ol.calendar .time { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
@media (max-width: 50rem) { ol.calendar { grid-template-columns: minmax(0, 1fr); } ol.calendar .day.other { display: none; } }
form.composer fieldset { min-width: 0; }
form.composer summary, form.composer .check-text { overflow-wrap: anywhere; }
ul.field-problems { margin: -.4rem 0 0; padding-left: 1rem; color: var(--danger); font-size: .88rem; overflow-wrap: anywhere; }
output.count { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85rem; color: var(--muted); margin-left: .4rem; }
output.count.over { color: var(--danger); font-weight: 700; }
progress { width: 100%; }
details > summary { cursor: pointer; font-weight: 600; }
img.preview { width: 10rem; max-width: 100%; height: auto; max-height: 12rem; object-fit: contain; border-radius: 6px; border: 1px solid var(--line); background: #fff; }
button, .button { font: inherit; display: inline-block; padding: .45rem .9rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger, .button.danger { background: #fff; color: var(--danger); border-color: var(--danger); }
button:focus-visible, .button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f5b800; outline-offset: 2px; }
.actions { display: flex; flex-wrap: wrap; gap: .4rem; }
.badge { display: inline-block; padding: .05rem .45rem; border-radius: 999px; font-size: .8rem; border: 1px solid currentColor; white-space: nowrap; }
.badge.ok { color: var(--ok); } .badge.off { color: var(--muted); } .badge.bad { color: var(--danger); } .badge.warn { color: var(--warn); }
.notice { padding: .75rem 1rem; border-radius: 6px; margin-bottom: 1rem; border: 1px solid; }
.notice.error { color: var(--danger); background: #fef3f2; }
.notice.ok { color: var(--ok); background: #ecfdf3; }
.notice.warn { color: var(--warn); background: #fffaeb; }
.secret { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.secret output { font-family: ui-monospace, Menlo, Consolas, monospace; background: #f2f4f7; padding: .5rem; border-radius: 6px; word-break: break-all; flex: 1 1 16rem; }
.muted { color: var(--muted); }
.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end; margin-bottom: 1rem; }
.filters label { min-width: 10rem; }
ul.targets { margin: 0; padding-left: 1rem; }
ul.targets li + li { margin-top: .25rem; }
.tiles { list-style: none; margin: 0 0 1rem; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); gap: .6rem; }
.tile { display: flex; flex-direction: column; gap: .15rem; height: 100%; padding: .7rem .8rem; border: 1px solid var(--line); border-radius: 8px; background: #fff; color: var(--fg); text-decoration: none; font-size: .9rem; }
.tile .name { font-weight: 600; font-size: 1rem; color: var(--accent); }
.tile:hover { border-color: var(--accent); }
.tile.off { background: #f2f4f7; }
.tile.off .name { color: var(--muted); }
ol.timeline { list-style: none; margin: 0; padding: 0; }
.timeline-item .content { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0 0 .4rem; }
.timeline-item .muted { margin: 0; font-size: .85rem; }
.timeline-item:target { outline: 3px solid #f5b800; outline-offset: 2px; }
.wrap { overflow-wrap: anywhere; }
.slot-day { display: flex; flex-wrap: wrap; gap: .35rem .9rem; align-items: center; padding: .2rem 0; }
.slot-day .day-name { font-weight: 600; min-width: 2.5rem; }
label.slot, .days label { display: inline-flex; gap: .3rem; align-items: center; font-weight: 400; }
.days { display: flex; flex-wrap: wrap; gap: .35rem .9rem; margin-bottom: .5rem; }
label.add-time input { max-width: 10rem; }
ol.week { list-style: none; margin: .75rem 0 1rem; padding: 0; display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: .5rem; }
.week-day { padding: .6rem; margin: 0; }
.week-day h3 { font-size: .95rem; margin: 0 0 .4rem; }
.week-day .entries { list-style: none; margin: 0; padding: 0; display: grid; gap: .35rem; font-size: .85rem; }
.week-day .entry .time { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
@media (max-width: 60rem) { ol.week { grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); } }
@media (max-width: 40rem) {
  main { padding: .6rem; }
  th, td { padding: .4rem .3rem; }
  /* Tables of class "rows" become one card per row on a phone: every column stays in view, each
     cell under its column's name (data-label), instead of a wide table scrolled sideways. */
  table.rows, table.rows tbody, table.rows tr, table.rows td { display: block; width: 100%; }
  table.rows thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.rows tr { border-bottom: 1px solid var(--line); padding: .35rem 0; }
  table.rows td { border: 0; padding: .2rem .5rem; overflow-wrap: anywhere; }
  table.rows td[data-label] { position: relative; padding-left: 7rem; min-height: 1.9rem; }
  table.rows td[data-label]::before { content: attr(data-label); position: absolute; left: .5rem; top: .2rem; width: 6rem; color: var(--muted); font-size: .8rem; font-weight: 600; line-height: 1.8; }
  .tiles { grid-template-columns: repeat(auto-fill, minmax(9rem, 1fr)); }
}
`;

export const CONSOLE_JS = `
'use strict';
document.addEventListener('click', function (event) {
  var button = event.target.closest ? event.target.closest('[data-copy-target]') : null;
  if (!button) return;
  var target = document.getElementById(button.getAttribute('data-copy-target'));
  if (!target) return;
  var text = target.textContent || '';
  var done = function () { button.textContent = 'Copied'; };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(done, function () { selectText(target); });
  } else {
    selectText(target);
  }
});
/* The composer (docs/adr/0053): counts per network as one types (the server counts, with each
   network's own validation code), and uploads in chunks through the console's upload routes. */
function composerToken(form) {
  var input = form.querySelector('input[name="_csrf"]');
  return input ? input.value : '';
}
function postJson(url, token, body) {
  return fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': token },
    body: JSON.stringify(body),
  }).then(function (res) {
    return res.json().then(function (data) {
      if (!res.ok) throw new Error(data.message || 'HTTP ' + res.status);
      return data;
    });
  });
}
function setupComposer(form) {
  var token = composerToken(form);
  Array.prototype.forEach.call(form.querySelectorAll('.js-only'), function (el) { el.hidden = false; });
  var text = form.querySelector('[data-count-source]');
  var timer = null;
  function recount() {
    postJson('/console/posts/count', token, { content: text.value }).then(function (data) {
      data.counts.forEach(function (c) {
        var out = form.querySelector('[data-count-for="' + c.channelId + '"]');
        if (!out) return;
        out.textContent = c.count + ' / ' + c.max;
        out.classList.toggle('over', c.count > c.max);
      });
    }, function () {});
  }
  if (text) text.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(recount, 200); });
  var picker = form.querySelector('[data-upload]');
  var progress = form.querySelector('[data-upload-progress]');
  var status = form.querySelector('[data-upload-status]');
  var list = form.querySelector('[data-media-list]');
  function uploadOne(file) {
    return postJson('/console/media/upload/initialize', token, { filename: file.name, mimeType: file.type, size: file.size })
      .then(function (item) {
        var index = 0;
        function next() {
          if (index >= item.totalChunks) return postJson('/console/media/upload/finalize', token, { mediaId: item.id });
          var data = new FormData();
          data.append('mediaId', item.id);
          data.append('chunkIndex', String(index));
          data.append('chunk', file.slice(index * item.chunkSize, Math.min(file.size, (index + 1) * item.chunkSize)), file.name);
          return fetch('/console/media/upload/file', { method: 'POST', credentials: 'same-origin', headers: { 'x-csrf-token': token }, body: data })
            .then(function (res) {
              if (!res.ok) return res.json().then(function (e) { throw new Error(e.message || 'HTTP ' + res.status); });
              index += 1;
              progress.value = Math.round((index / item.totalChunks) * 100);
              return next();
            });
        }
        return next();
      })
      .then(function (item) {
        var input = document.createElement('input');
        input.type = 'hidden';
        input.name = 'mediaIds';
        input.value = item.id;
        list.appendChild(input);
        var line = document.createElement('p');
        line.setAttribute('data-testid', 'uploaded-media');
        line.textContent = file.name + ': ' + item.status;
        list.appendChild(line);
      });
  }
  if (picker) picker.addEventListener('change', function () {
    var files = Array.prototype.slice.call(picker.files);
    progress.value = 0;
    status.textContent = 'Uploading ' + files.length + ' file(s)…';
    files.reduce(function (done, file) { return done.then(function () { return uploadOne(file); }); }, Promise.resolve())
      .then(function () { status.textContent = 'Uploaded.'; }, function (err) { status.textContent = 'Upload failed: ' + err.message; });
  });
}
document.addEventListener('DOMContentLoaded', function () {
  Array.prototype.forEach.call(document.querySelectorAll('form[data-composer]'), setupComposer);
});
/* The calendar: drag a scheduled post onto a slot (its time) or a day (the post's time of day on
   it); the drop fills and sends the post's own Move form, which works without script as well. */
document.addEventListener('dragstart', function (event) {
  var post = event.target.closest ? event.target.closest('[data-post-id][draggable="true"]') : null;
  if (post) event.dataTransfer.setData('text/plain', post.getAttribute('data-post-id'));
});
document.addEventListener('dragover', function (event) {
  var target = event.target.closest ? event.target.closest('[data-drop-at], [data-drop-day]') : null;
  if (target) event.preventDefault();
});
document.addEventListener('drop', function (event) {
  var target = event.target.closest ? event.target.closest('[data-drop-at], [data-drop-day]') : null;
  if (!target) return;
  event.preventDefault();
  var id = event.dataTransfer.getData('text/plain');
  var form = document.querySelector('form[data-move-form="' + id + '"]');
  if (!form) return;
  var at = target.getAttribute('data-drop-at');
  if (at) {
    var option = document.createElement('option');
    option.value = at;
    form.querySelector('select[name="at"]').appendChild(option);
    form.querySelector('select[name="at"]').value = at;
  } else {
    var entry = document.querySelector('[data-post-id="' + id + '"] .time');
    form.querySelector('input[name="custom"]').value = target.getAttribute('data-drop-day') + 'T' + (entry ? entry.textContent : '12:00');
  }
  form.submit();
});
function selectText(node) {
  var range = document.createRange();
  range.selectNodeContents(node);
  var selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}
`;
