//! The HTML report: one self-contained file a person reads to trust (or tune) a run.
//!
//! Inline CSS, plots as inline SVG drawn here ([`svg`]), a few lines of inline JavaScript that
//! sort tables (the page reads the same without it); no CDN, no server. What it shows is gathered
//! while the run's results stream past ([`data::RunData`]); the texts of the sampled pairs are
//! read again from the inputs ([`texts`]); the diffs are word-level ([`diff`]). Every text that
//! comes from a document (ids, texts, reasons, file names) is escaped.
//!
//! The file is capped in size: pairs are sampled (a few per 0.05 similarity band), texts are cut,
//! tables list their largest rows; when the page would still be over the cap, fewer pairs and
//! shorter texts are shown. The page says what it left out. The same run gives the same bytes:
//! everything is ordered and formatted deterministically; the figures that are measured (times,
//! threads, memory) are the only ones that differ between two runs, and they are all in one
//! table (`id="measured"`).

pub mod compare;
pub mod data;
pub mod diff;
mod page;
pub mod svg;
pub mod texts;

pub use page::render;

/// Width of the similarity bands the pairs are sampled from.
pub const BAND: f64 = 0.05;

/// `s` with `& < > " '` escaped, for text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than white space are not allowed in HTML text.
            c if c.is_control() && !matches!(c, '\n' | '\t' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The stylesheet and script every page shares.
pub(crate) const HEAD: &str = r#"<style>
:root{--fg:#1b1b1b;--muted:#555;--line:#ccc;--bg:#fff;--accent:#0b5cad;--del:#ffd7d5;--ins:#d4f5d9;--sh:#e6eefc}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;padding:1rem;max-width:1200px}
h1{font-size:1.5rem;margin:.2rem 0;overflow-wrap:anywhere}h2{font-size:1.2rem;margin-top:2rem;border-bottom:2px solid var(--line);padding-bottom:.2rem}
h3{font-size:1rem;margin:1.2rem 0 .4rem}
nav a{margin-right:.8rem;display:inline-block;white-space:nowrap}
a{color:var(--accent)}
.muted,.note{color:var(--muted)}.note{font-size:.9rem}
table{border-collapse:collapse;margin:.4rem 0;font-size:.9rem;max-width:100%}
th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top;overflow-wrap:break-word}
td:not(.n){overflow-wrap:anywhere}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tfoot td{font-weight:600}code{white-space:nowrap}
th[data-sort]{cursor:pointer}th[data-sort]::after{content:" \2195";color:var(--muted)}
.wrap{overflow-x:auto}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(9.5rem,1fr));gap:.6rem;margin:.6rem 0}
.card{border:1px solid var(--line);border-radius:6px;padding:.4rem .8rem}
.card b{display:block;font-size:1.3rem}
svg.plot{width:100%;max-width:640px;height:auto;display:block;margin:.4rem 0}
svg .grid{stroke:#e5e5e5}svg .frame{fill:none;stroke:#888}
svg .tick,svg .label,svg .axis{font:11px system-ui,sans-serif;fill:#333}svg .axis{font-size:12px}
svg .curve{fill:none;stroke:var(--accent);stroke-width:2}
svg .curve2{fill:none;stroke:#b35900;stroke-width:2;stroke-dasharray:6 3}
svg .mark{stroke:#c00;stroke-width:1.5;stroke-dasharray:4 3}
svg .guide{stroke:#888;stroke-dasharray:2 3}
svg .acc{fill:var(--accent)}svg .rej{fill:#bbb;stroke:#777;stroke-width:.5}
svg .pt{fill:var(--accent);stroke:#fff}
.pair{border:1px solid var(--line);border-radius:6px;margin:.6rem 0;padding:.4rem .6rem}
.pair>summary{cursor:pointer}
.ids{overflow-wrap:anywhere}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:.6rem;margin-top:.4rem}
.side{white-space:pre-wrap;word-break:break-word;font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;border:1px solid var(--line);padding:.4rem;max-height:28rem;overflow:auto;background:#fcfcfc}
.side h4{font:600 12px system-ui,sans-serif;margin:0 0 .3rem;white-space:normal}
del{background:var(--del);text-decoration:line-through}
ins{background:var(--ins);text-decoration:underline}
.sh{background:var(--sh)}
.legend span{padding:0 .3rem;margin-right:.4rem}
.flag{font-weight:600;color:#a00}
@media (max-width:700px){.sides{grid-template-columns:1fr}body{padding:.5rem}svg .tick,svg .label{font-size:17px}svg .axis{font-size:18px}
table.rates{display:grid;grid-template-columns:repeat(5,auto)}table.rates>*,table.rates tr{display:contents}
table.rates tr>:first-child{grid-column:1/-1;border-top:1px solid var(--line)}table.rates th,table.rates td{border-width:0 0 1px;padding:.2rem .3rem}
table.rates th.n{white-space:normal;overflow-wrap:normal}table.clusters,table.clusters tbody{display:block}table.clusters thead{display:none}table.clusters tr{display:block;border:1px solid var(--line);margin-bottom:.5rem}
table.clusters td{display:block;border:none;text-align:left}table.clusters td::before{content:attr(data-label) ": ";font-weight:600}}
</style>
<script>
addEventListener("DOMContentLoaded",function(){document.querySelectorAll("th[data-sort]").forEach(function(th){th.addEventListener("click",function(){var t=th.closest("table"),b=t.tBodies[0],i=Array.prototype.indexOf.call(th.parentNode.children,th),num=th.dataset.sort==="n",asc=th.dataset.dir!=="a";th.dataset.dir=asc?"a":"d";var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){var p=x.cells[i].textContent,q=y.cells[i].textContent;if(num){p=parseFloat(p)||0;q=parseFloat(q)||0;return asc?p-q:q-p}return asc?p.localeCompare(q):q.localeCompare(p)});rows.forEach(function(r){b.appendChild(r)})})})});
</script>"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_quotes_and_control_characters() {
        assert_eq!(
            escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(escape("a\u{0}b\nc"), "a\u{FFFD}b\nc");
    }
}
