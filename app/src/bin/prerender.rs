//! `prerender DIST`: writes every page of the site into `DIST`, rendered from the app's own
//! components (Yew's server renderer), after trunk has built the shell and `./lab` the view
//! modules. A page holds the header, sidebar and the topic's full text, so it reads with
//! JavaScript off and shows at once; the shell then wires it (see `app::browser`).
//!
//! From trunk's `DIST/index.html` it writes:
//! - `index.html` and `ROUTE/index.html` for every topic, each with a `<base href>` up to
//!   the site root (so the same files work from a host's root and any sub-path);
//! - `404.html`, the not-found page, whose asset tags wait in a `<template>` until its
//!   script has found the site root (see index.html);
//! - `text/<slug>.html`, each topic's text, which the shell fetches on navigation;
//! - `search.txt`, the search index, fetched on first use of the search box.
//!
//! Every page names each view's module (`views/<name>-<hash>/<name>.js`, by `./lab`) in a
//! `<meta name="lab-view">`, and a view's page preloads its own.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    match site::write_pages() {
        Ok(count) => {
            println!("prerender: wrote {count} pages");
            std::process::ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("prerender: error: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod site {
    use std::{
        fs,
        path::{Path, PathBuf},
    };

    use app::{
        base,
        components::{NotFound, Shell, ShellProps, TopicPage, TopicPageProps},
        search_index,
        topics::{text_of, Topic, SEARCH_SECTIONS, TOPICS},
        ROOT_ID,
    };
    use yew::{AttrValue, BaseComponent, LocalServerRenderer};

    const ASSETS_MARKER: &str = "<!-- lab:assets -->";

    /// Before the first paint, while the shell is still loading: marks the page as scripted
    /// (the stylesheet offers the menu, search and theme controls only then) and applies a
    /// remembered theme.
    const FIRST_PAINT_SCRIPT: &str = r#"<script>document.documentElement.classList.add("scripted");try{const t=localStorage.getItem("rdma-lab.theme");if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}</script>"#;

    struct ViewModule {
        name: String,
        /// Relative to the site root.
        script: String,
        wasm: String,
    }

    fn read(path: &Path) -> Result<String, String> {
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    }

    fn write(path: &Path, contents: &str) -> Result<(), String> {
        if let Some(folder) = path.parent() {
            fs::create_dir_all(folder)
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        fs::write(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// The view modules `./lab` put in `DIST/views/<name>-<hash>/`.
    fn view_modules(dist: &Path) -> Result<Vec<ViewModule>, String> {
        let folder = dist.join("views");
        let mut modules = Vec::new();
        let entries = fs::read_dir(&folder).map_err(|e| {
            format!(
                "cannot list {}: {e} (./lab builds the view modules first)",
                folder.display()
            )
        })?;
        for entry in entries.flatten() {
            let dir = entry.file_name().to_string_lossy().into_owned();
            let Some((name, _hash)) = dir.rsplit_once('-') else {
                continue;
            };
            if entry.path().join(format!("{name}.js")).is_file() {
                modules.push(ViewModule {
                    name: name.to_string(),
                    script: format!("views/{dir}/{name}.js"),
                    wasm: format!("views/{dir}/{name}_bg.wasm"),
                });
            }
        }
        modules.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(modules)
    }

    fn escape(text: &str) -> String {
        text.replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;")
    }

    /// `component`'s markup with these props.
    fn render<C: BaseComponent>(runtime: &tokio::runtime::Runtime, props: C::Properties) -> String {
        let renderer = LocalServerRenderer::<C>::with_props(props);
        tokio::task::LocalSet::new().block_on(runtime, renderer.render())
    }

    /// A topic's main region: what `text/<slug>.html` holds and the shell swaps in.
    fn topic_region(
        runtime: &tokio::runtime::Runtime,
        topic: &'static Topic,
        text: &str,
    ) -> String {
        render::<TopicPage>(
            runtime,
            TopicPageProps {
                topic,
                text: AttrValue::from(text.to_string()),
            },
        )
    }

    /// A whole page around `main`, which is already markup.
    fn whole_page(
        runtime: &tokio::runtime::Runtime,
        current: Option<&'static str>,
        main: &str,
    ) -> String {
        let children = yew::Html::from_html_unchecked(AttrValue::from(main.to_string()));
        render::<Shell>(runtime, ShellProps { current, children })
    }

    struct Page<'a> {
        title: String,
        description: &'a str,
        /// `<base href>` up to the site root; none for the root itself and for 404.html.
        base: Option<String>,
        view: Option<&'a ViewModule>,
        not_found: bool,
        body: String,
    }

    fn page(template: &str, modules: &[ViewModule], page: &Page) -> Result<String, String> {
        let mut html = template.to_string();
        let mut replace = |from: &str, to: &str| -> Result<(), String> {
            if !html.contains(from) {
                return Err(format!("trunk's index.html lacks {from}"));
            }
            html = html.replacen(from, to, 1);
            Ok(())
        };
        if let Some(base) = &page.base {
            replace("<head>", &format!("<head>\n    <base href=\"{base}\" />"))?;
        }
        replace(
            "<title>rdma-lab</title>",
            &format!("<title>{}</title>", escape(&page.title)),
        )?;
        let description = "<meta name=\"description\" content=\"";
        let at = html
            .find(description)
            .ok_or("trunk's index.html lacks its description")?;
        let end = at + description.len() + html[at + description.len()..].find('"').unwrap_or(0);
        html.replace_range(at + description.len()..end, &escape(page.description));

        let mut head = String::from(FIRST_PAINT_SCRIPT);
        for module in modules {
            head.push_str(&format!(
                "\n    <meta name=\"lab-view\" data-view=\"{}\" content=\"{}\" />",
                module.name, module.script
            ));
        }
        head.push_str("\n    ");
        let mut assets = String::from(ASSETS_MARKER);
        if let Some(view) = page.view {
            // Fetched alongside the shell rather than after it.
            assets.push_str(&format!(
                "\n    <link rel=\"modulepreload\" href=\"{}\" />\n    <link rel=\"preload\" href=\"{}\" as=\"fetch\" type=\"application/wasm\" crossorigin />",
                view.script, view.wasm
            ));
        }
        let mut replace = |from: &str, to: &str| -> Result<(), String> {
            if !html.contains(from) {
                return Err(format!("trunk's index.html lacks {from}"));
            }
            html = html.replacen(from, to, 1);
            Ok(())
        };
        replace(ASSETS_MARKER, &format!("{head}{assets}"))?;
        if page.not_found {
            replace(ASSETS_MARKER, "<template id=\"lab-assets\">")?;
            replace("</head>", "</template></head>")?;
        }
        // The body tag itself: after </head>, whatever the comments above it mention.
        let body = html
            .find("</head>")
            .and_then(|head_end| html[head_end..].find("<body>").map(|at| head_end + at))
            .ok_or("trunk's index.html has no <body> after its </head>")?;
        html.insert_str(
            body + "<body>".len(),
            &format!("\n    <div id=\"{ROOT_ID}\">{}</div>", page.body),
        );
        Ok(html)
    }

    pub fn write_pages() -> Result<usize, String> {
        let dist = std::env::args_os()
            .nth(1)
            .map(PathBuf::from)
            .ok_or("usage: prerender DIST (the folder trunk built; ./lab site runs this)")?;
        let template_path = dist.join("index.html");
        let template = read(&template_path)?;
        if !template.contains(ASSETS_MARKER) {
            return Err(format!(
                "{} lacks the {ASSETS_MARKER} marker: is it trunk's page, or one written before?",
                template_path.display()
            ));
        }
        let modules = view_modules(&dist)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the renderer's runtime: {e}"))?;

        let mut written = 0;
        for topic in TOPICS {
            let source = text_of(topic.path)
                .ok_or_else(|| format!("{} has no compiled text", topic.path))?;
            let region = topic_region(&runtime, topic, &base::relative_links(source, topic.path));
            write(&dist.join(base::text_file(topic.path)), &region)?;

            let slug = topic.path.trim_matches('/');
            let view = (topic.view.is_some())
                .then(|| modules.iter().find(|m| m.name == slug))
                .flatten();
            if topic.view.is_some() && view.is_none() {
                return Err(format!(
                    "{} has a view but no module views/{slug}-*/{slug}.js",
                    topic.path
                ));
            }
            let html = page(
                &template,
                &modules,
                &Page {
                    title: format!("{} · rdma-lab", topic.title),
                    description: topic.summary,
                    base: (!slug.is_empty()).then(|| slug.split('/').map(|_| "../").collect()),
                    view,
                    not_found: false,
                    body: whole_page(&runtime, Some(topic.path), &region),
                },
            )?;
            let file = if slug.is_empty() {
                dist.join("index.html")
            } else {
                dist.join(slug).join("index.html")
            };
            write(&file, &html)?;
            written += 1;
        }

        let not_found = page(
            &template,
            &modules,
            &Page {
                title: "Page not found · rdma-lab".to_string(),
                description: "There is no page at this address in rdma-lab.",
                base: None,
                view: None,
                not_found: true,
                body: whole_page(&runtime, None, &render::<NotFound>(&runtime, ())),
            },
        )?;
        write(&dist.join("404.html"), &not_found)?;
        written += 1;

        write(
            &dist.join(search_index::FILE),
            &search_index::encode(SEARCH_SECTIONS),
        )?;
        Ok(written)
    }
}
