//! The timeline of a session, drawn as a window over its items: only those near the visible
//! part of the scroll box are in the page, the rest are spacers sized from measured and
//! estimated heights ([`Viewport`]), so a session of ten thousand events stays a small page.
//! It follows the newest item while the user is at the bottom, and brings an item into view
//! when asked (jump to a step).

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::timeline_entry::TimelineEntry;
use crate::view::{Timeline, Viewport};

/// Height guessed for an item before any is measured, in pixels.
const ESTIMATE: f64 = 72.0;
/// Box height assumed before the box is laid out.
const DEFAULT_VIEW: f64 = 900.0;
/// How close to the bottom counts as "at the bottom" (then new items scroll into view).
const FOLLOW_SLACK: f64 = 40.0;

/// The list of what happened in a session (`data-testid="timeline"`, one `data-kind` and
/// `data-index` per drawn item). Everything model- or tool-made is rendered as text or as
/// sanitised markdown, never as markup of its own.
#[component]
pub fn TimelineView(
    /// The timeline to show.
    #[prop(into)]
    timeline: Signal<Timeline>,
    /// Called with a step number when the user forks the session there; no fork buttons when
    /// absent.
    #[prop(optional)]
    on_fork: Option<Callback<(u32, u32)>>,
    /// An item to bring into view (set by the step jump); cleared once taken.
    #[prop(optional)]
    jump: Option<RwSignal<Option<usize>>>,
) -> impl IntoView {
    let latest_run = Signal::derive(move || timeline.with(Timeline::run));
    let scroller = NodeRef::<html::Div>::new();
    let list = NodeRef::<html::Ol>::new();
    let viewport = StoredValue::new(Viewport::new(ESTIMATE));
    let scroll = RwSignal::new((0.0, DEFAULT_VIEW));
    let layout = RwSignal::new(0u64);
    let follow = StoredValue::new(true);
    let target = StoredValue::new(None::<usize>);
    let len = Memo::new(move |_| timeline.with(|t| t.items().len()));
    let range = Memo::new(move |_| {
        let n = len.get();
        layout.track();
        let (top, height) = scroll.get();
        viewport.update_value(|v| v.set_len(n));
        viewport.with_value(|v| v.window(top, height))
    });
    let spacers = move || {
        let r = range.get();
        layout.track();
        viewport.with_value(|v| {
            let top = v.offset(r.start);
            let bottom = (v.total() - v.offset(r.end)).max(0.0);
            format!("padding-top:{top:.0}px;padding-bottom:{bottom:.0}px")
        })
    };
    let places = Places {
        scroller,
        list,
        viewport,
        layout,
        follow,
        target,
    };
    Effect::new(move |_| {
        range.track();
        layout.track();
        timeline.track();
        request_animation_frame(move || places.measure());
    });
    if let Some(jump) = jump {
        Effect::new(move |_| {
            if let Some(index) = jump.get() {
                jump.set(None);
                follow.set_value(false);
                target.set_value(Some(index));
                places.scroll_to_target();
            }
        });
    }
    let last_top = StoredValue::new(0.0f64);
    let on_scroll = move |_| {
        if let Some(el) = scroller.get_untracked() {
            let top = f64::from(el.scroll_top());
            let height = f64::from(el.client_height());
            // Following stops only when the user scrolls up; a scroll to the bottom that lands
            // short because measured heights grew the list keeps following.
            if top + height >= f64::from(el.scroll_height()) - FOLLOW_SLACK {
                follow.set_value(true);
            } else if top < last_top.get_value() {
                follow.set_value(false);
            }
            last_top.set_value(top);
            scroll.set((top, if height > 0.0 { height } else { DEFAULT_VIEW }));
        }
    };
    view! {
        <div
            class="timeline-scroll"
            node_ref=scroller
            tabindex="0"
            role="region"
            aria-label="Timeline, scrollable"
            on:scroll=on_scroll
        >
            <ol class="timeline" data-testid="timeline" aria-label="Timeline" node_ref=list style=spacers>
                <For
                    each=move || timeline.with(|t| t.keys_in(range.get()))
                    key=|key| *key
                    children=move |(index, _revision)| {
                        timeline
                            .with_untracked(|t| t.items().get(index).cloned())
                            .map(|item| view! { <TimelineEntry item index on_fork latest_run/> })
                    }
                />
            </ol>
        </div>
    }
}

/// What measuring and scrolling the list needs (all `Copy` handles).
#[derive(Clone, Copy)]
struct Places {
    scroller: NodeRef<html::Div>,
    list: NodeRef<html::Ol>,
    viewport: StoredValue<Viewport>,
    layout: RwSignal<u64>,
    follow: StoredValue<bool>,
    target: StoredValue<Option<usize>>,
}

impl Places {
    /// Measures the drawn items, then keeps the target (or the bottom) in view.
    fn measure(self) {
        // The list may be gone by the time the frame comes (another session is shown).
        let Some(list) = self.list.try_get_untracked().flatten() else {
            return;
        };
        let children = list.children();
        let rows: Vec<(usize, f64, f64)> = (0..children.length())
            .filter_map(|i| children.item(i))
            .filter_map(|el| {
                let index = el.get_attribute("data-index")?.parse().ok()?;
                let el = el.dyn_into::<web_sys::HtmlElement>().ok()?;
                Some((
                    index,
                    f64::from(el.offset_top()),
                    f64::from(el.offset_height()),
                ))
            })
            .collect();
        let gap = match rows.as_slice() {
            [a, b, ..] => (b.1 - a.1 - a.2).max(0.0),
            [_] | [] => 0.0,
        };
        let changed = self
            .viewport
            .try_update_value(|v| {
                let mut changed = false;
                for (k, row) in rows.iter().enumerate() {
                    let height = match rows.get(k + 1) {
                        Some(next) => next.1 - row.1,
                        None => row.2 + gap,
                    };
                    changed |= v.measure(row.0, height);
                }
                changed
            })
            .unwrap_or(false);
        if changed {
            self.layout.try_update(|n| *n += 1);
        }
        if self.target.try_get_value().flatten().is_some() {
            self.scroll_to_target();
            if !changed {
                self.focus_target(&list);
            }
        } else if self.follow.try_get_value() == Some(true) {
            if let Some(scroller) = self.scroller.try_get_untracked().flatten() {
                scroller.set_scroll_top(scroller.scroll_height());
            }
        }
    }

    fn scroll_to_target(self) {
        let (Some(index), Some(scroller)) = (
            self.target.try_get_value().flatten(),
            self.scroller.try_get_untracked().flatten(),
        ) else {
            return;
        };
        if let Some(top) = self.viewport.try_with_value(|v| v.scroll_to(index)) {
            scroller.set_scroll_top(top as i32);
        }
    }

    /// The jump landed: the item gets the focus (and a highlight) and the target is done.
    fn focus_target(self, list: &web_sys::HtmlOListElement) {
        let Some(index) = self.target.try_get_value().flatten() else {
            return;
        };
        self.target.try_set_value(None);
        let found = list
            .query_selector(&format!("[data-index=\"{index}\"]"))
            .ok()
            .flatten()
            .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(el) = found {
            let _ = el.set_attribute("tabindex", "-1");
            let _ = el.class_list().add_1("jumped");
            let options = web_sys::FocusOptions::new();
            options.set_prevent_scroll(true);
            let _ = el.focus_with_options(&options);
        }
    }
}
