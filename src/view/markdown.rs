//! Model text as markdown, rendered to a small, closed subset of HTML. Every character of the
//! input reaches the output escaped; the only tags are the ones written here. Raw HTML in the
//! markdown is shown as text, links keep only `http:`, `https:` and `mailto:` targets (and open in
//! a new tab with no opener or referrer), and images become a button that loads them only when
//! the user asks (`data-src`), so rendering never makes a request.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag};

/// What to write when the element a `Start` opened ends.
enum Close {
    /// This closing markup.
    Html(&'static str),
    /// Nothing (a dropped link, a wrapper without markup).
    Nothing,
    /// An image: its alt text was collected meanwhile; a safe source becomes a placeholder.
    Image { src: Option<String>, title: String },
}

/// Renders `text` as markdown (tables, code blocks, lists, links) to escaped, sanitised HTML.
pub fn render_markdown(text: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut out = Renderer::default();
    for event in Parser::new_ext(text, options) {
        out.event(event);
    }
    out.html
}

/// The target of a link or image if it is one we let through: absolute `http(s)` or `mailto`,
/// with no whitespace or control characters a browser would strip to find another scheme.
pub fn safe_url(url: &str) -> Option<&str> {
    let url = url.trim();
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return None;
    }
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let allowed = lower.starts_with("https://")
        || lower.starts_with("http://")
        || lower.starts_with("mailto:");
    allowed.then_some(url)
}

/// The host of an `http(s)` URL, for the image placeholder.
fn host(url: &str) -> &str {
    let rest = url.split_once("//").map_or(url, |(_, rest)| rest);
    rest.split(['/', '?', '#']).next().unwrap_or(rest)
}

#[derive(Default)]
struct Renderer {
    html: String,
    stack: Vec<Close>,
    /// Alt text of the image being read (images inside images add to the outer one).
    alt: Option<String>,
    aligns: Vec<Alignment>,
    cell: usize,
    in_head: bool,
}

impl Renderer {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(_) => self.end(),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                if self.alt.is_some() {
                    self.text(&code);
                } else {
                    self.html.push_str("<code>");
                    self.text(&code);
                    self.html.push_str("</code>");
                }
            }
            // Raw HTML is never markup: a person sees what the model wrote.
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::InlineMath(math) | Event::DisplayMath(math) => self.text(&math),
            Event::FootnoteReference(name) => {
                self.text("[^");
                self.text(&name);
                self.text("]");
            }
            Event::SoftBreak => self.text("\n"),
            Event::HardBreak => self.markup("<br>"),
            Event::Rule => self.markup("<hr>"),
            Event::TaskListMarker(done) => self.text(if done { "☑ " } else { "☐ " }),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        if self.alt.is_some() {
            // Inside an image's alt text only the words count.
            self.stack.push(Close::Nothing);
            return;
        }
        let close = match tag {
            Tag::Paragraph => self.open("<p>", "</p>"),
            Tag::Heading { level, .. } => {
                // Headings in a reply sit below the page's own (h1, h2).
                let (open, close) = match level as usize {
                    1 => ("<h3>", "</h3>"),
                    2 => ("<h4>", "</h4>"),
                    3 => ("<h5>", "</h5>"),
                    _ => ("<h6>", "</h6>"),
                };
                self.open(open, close)
            }
            Tag::BlockQuote(_) => self.open("<blockquote>", "</blockquote>"),
            Tag::CodeBlock(kind) => {
                self.html.push_str("<pre><code");
                if let CodeBlockKind::Fenced(lang) = kind {
                    let lang = lang.split_whitespace().next().unwrap_or("");
                    if !lang.is_empty() {
                        self.html.push_str(" data-lang=\"");
                        self.attr(lang);
                        self.html.push('"');
                    }
                }
                self.html.push('>');
                Close::Html("</code></pre>")
            }
            Tag::HtmlBlock
            | Tag::MetadataBlock(_)
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => Close::Nothing,
            Tag::List(Some(start)) if start != 1 => {
                self.html.push_str(&format!("<ol start=\"{start}\">"));
                Close::Html("</ol>")
            }
            Tag::List(Some(_)) => self.open("<ol>", "</ol>"),
            Tag::List(None) => self.open("<ul>", "</ul>"),
            Tag::Item => self.open("<li>", "</li>"),
            Tag::Table(aligns) => {
                self.aligns = aligns;
                self.open("<div class=\"md-table\"><table>", "</tbody></table></div>")
            }
            Tag::TableHead => {
                self.in_head = true;
                self.cell = 0;
                self.open("<thead><tr>", "</tr></thead><tbody>")
            }
            Tag::TableRow => {
                self.in_head = false;
                self.cell = 0;
                self.open("<tr>", "</tr>")
            }
            Tag::TableCell => self.table_cell(),
            Tag::Emphasis => self.open("<em>", "</em>"),
            Tag::Strong => self.open("<strong>", "</strong>"),
            Tag::Strikethrough => self.open("<del>", "</del>"),
            Tag::Superscript => self.open("<sup>", "</sup>"),
            Tag::Subscript => self.open("<sub>", "</sub>"),
            Tag::Link {
                dest_url, title, ..
            } => match safe_url(&dest_url) {
                Some(url) => {
                    self.html.push_str("<a href=\"");
                    self.attr(url);
                    self.html.push('"');
                    if !title.is_empty() {
                        self.html.push_str(" title=\"");
                        self.attr(&title);
                        self.html.push('"');
                    }
                    self.html
                        .push_str(" rel=\"noopener noreferrer\" target=\"_blank\">");
                    Close::Html("</a>")
                }
                // The words stay; the target goes.
                None => Close::Nothing,
            },
            Tag::Image {
                dest_url, title, ..
            } => {
                self.alt = Some(String::new());
                Close::Image {
                    src: safe_url(&dest_url)
                        .filter(|u| !u.to_ascii_lowercase().starts_with("mailto:"))
                        .map(str::to_string),
                    title: title.to_string(),
                }
            }
        };
        self.stack.push(close);
    }

    fn table_cell(&mut self) -> Close {
        let align = match self.aligns.get(self.cell) {
            Some(Alignment::Left) => " class=\"left\"",
            Some(Alignment::Center) => " class=\"center\"",
            Some(Alignment::Right) => " class=\"right\"",
            Some(Alignment::None) | None => "",
        };
        self.cell += 1;
        let (open, close) = if self.in_head {
            ("<th", "</th>")
        } else {
            ("<td", "</td>")
        };
        self.html.push_str(open);
        self.html.push_str(align);
        self.html.push('>');
        Close::Html(close)
    }

    fn end(&mut self) {
        match self.stack.pop() {
            Some(Close::Html(close)) => self.html.push_str(close),
            Some(Close::Nothing) | None => {}
            Some(Close::Image { src, title }) => {
                let alt = self.alt.take().unwrap_or_default();
                self.image(src, &alt, &title);
            }
        }
    }

    /// The click-to-load placeholder of a remote image (or just its alt text).
    fn image(&mut self, src: Option<String>, alt: &str, title: &str) {
        let label = if alt.trim().is_empty() { "image" } else { alt };
        let Some(src) = src else {
            self.text("[");
            self.text(label);
            self.text("]");
            return;
        };
        self.html
            .push_str("<button type=\"button\" class=\"md-image\" data-src=\"");
        self.attr(&src);
        self.html.push_str("\" data-alt=\"");
        self.attr(alt);
        if !title.is_empty() {
            self.html.push_str("\" title=\"");
            self.attr(title);
        }
        self.html.push_str("\">Load image: ");
        self.text(label);
        self.html.push_str(" <span class=\"md-host\">(");
        self.text(host(&src));
        self.html.push_str(")</span></button>");
    }

    fn open(&mut self, open: &'static str, close: &'static str) -> Close {
        self.html.push_str(open);
        Close::Html(close)
    }

    fn markup(&mut self, html: &'static str) {
        if self.alt.is_none() {
            self.html.push_str(html);
        }
    }

    /// Text content, escaped (or added to the alt text of the image being read).
    fn text(&mut self, text: &str) {
        match self.alt.as_mut() {
            Some(alt) => alt.push_str(text),
            None => escape_into(&mut self.html, text),
        }
    }

    fn attr(&mut self, value: &str) {
        escape_into(&mut self.html, value);
    }
}

/// Escapes text for both element content and double-quoted attribute values.
fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}
