//! The `LanguageServer` implementation.
//!
//! Notifications that change text (`didOpen`, `didChange`, `didClose`) write
//! to the database at once, before any `.await`, so they apply in the order
//! they arrive. Requests take a snapshot under the lock, release it, and
//! compute on a blocking thread (`spawn_blocking`); an edit arriving
//! meanwhile cancels the snapshot and the request answers `ContentModified`.
//! Diagnostics are computed by one task, woken after each change, so they
//! are published in order and only for the latest version.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::features::{
    self, GeneratedRustParams, GeneratedRustResult, InverseParams, InverseResult,
};
use crate::line_index::Encoding;
use crate::workspace::{Snapshot, Workspace};

/// The LSP error code for "the request failed" (LSP 3.17 `RequestFailed`).
const REQUEST_FAILED: i64 = -32803;

fn request_failed(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::ServerError(REQUEST_FAILED),
        message: message.into().into(),
        data: None,
    }
}

fn unknown_document() -> Error {
    request_failed("unknown document: open it first")
}

pub struct Backend {
    client: Client,
    shared: Arc<Shared>,
}

struct Shared {
    workspace: Mutex<Workspace>,
    /// Wakes the diagnostics task.
    changed: Notify,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Workspace> {
        // A panic while holding the lock leaves the data usable: every write
        // is a whole salsa input update.
        self.workspace.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend {
            client,
            shared: Arc::new(Shared {
                workspace: Mutex::new(Workspace::new()),
                changed: Notify::new(),
            }),
        }
    }

    /// Runs `f` on a snapshot of `uri` on a blocking thread. `Ok(None)` for a
    /// document the server does not know.
    async fn read<T, F>(&self, uri: &Uri, f: F) -> Result<Option<T>>
    where
        T: Send + 'static,
        F: FnOnce(&Snapshot) -> T + Send + 'static,
    {
        let Some(snapshot) = self.shared.lock().snapshot(uri) else {
            return Ok(None);
        };
        compute(snapshot, f).await.map(Some)
    }

    /// [`Backend::read`] for a request that may be refused: the refusal's
    /// message becomes a `RequestFailed` error.
    async fn read_refusable<T, M, F>(&self, uri: &Uri, f: F) -> Result<Option<T>>
    where
        T: Send + 'static,
        M: Into<String> + Send + 'static,
        F: FnOnce(&Snapshot) -> std::result::Result<T, M> + Send + 'static,
    {
        match self.read(uri, f).await? {
            None => Ok(None),
            Some(Ok(value)) => Ok(Some(value)),
            Some(Err(refusal)) => Err(request_failed(refusal)),
        }
    }

    fn spawn_diagnostics_task(&self) {
        let shared = self.shared.clone();
        let client = self.client.clone();
        tokio::spawn(diagnostics_task(shared, client));
    }

    pub async fn inverse(&self, params: InverseParams) -> Result<InverseResult> {
        let uri = params.text_document.uri.clone();
        self.read_refusable(&uri, move |s| features::inverse(s, &params))
            .await?
            .ok_or_else(unknown_document)
    }

    pub async fn generated_rust(&self, params: GeneratedRustParams) -> Result<GeneratedRustResult> {
        let uri = params.text_document.uri;
        self.read_refusable(&uri, features::generated_rust)
            .await?
            .ok_or_else(unknown_document)
    }
}

/// Runs `f` on `snapshot` on a blocking thread: a request's computation.
/// An edit arriving meanwhile cancels it (`ContentModified`).
async fn compute<T, F>(snapshot: Snapshot, f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&Snapshot) -> T + Send + 'static,
{
    let joined = tokio::task::spawn_blocking(move || {
        // The snapshot is dropped inside this closure, before the result
        // travels back, so a waiting writer is released at once.
        let result = nilang_ide::Cancelled::catch(AssertUnwindSafe(|| f(&snapshot)));
        drop(snapshot);
        result
    })
    .await;
    match joined {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(_cancelled)) => Err(Error::content_modified()),
        Err(join_error) => {
            let mut e = Error::internal_error();
            e.message = format!("the request failed inside the server: {join_error}").into();
            Err(e)
        }
    }
}

/// The first check of a workspace reports `$/progress` (where the client
/// takes it) when it has at least this many files.
const PROGRESS_MIN: usize = 16;
/// Files checked per batch, between two progress reports.
const CHUNK: usize = 8;
/// The most workspace symbols one answer holds.
const WORKSPACE_SYMBOLS: usize = 500;

/// Recomputes and publishes diagnostics whenever files change: open
/// documents at their version, closed files without one. One task, so that
/// publications never overtake each other; a computation cancelled by a
/// newer edit is simply redone for the newer text. Work is taken a few
/// files at a time, each batch with a database handle of its own that is
/// dropped before anything is published, so that an edit (which waits for
/// every handle) never waits on this task.
///
/// A client that pulls diagnostics pulls those of its open documents
/// (`textDocument/diagnostic`); the task publishes only closed files' for
/// it. Editors pull for open documents only (Neovim and VS Code do not pull
/// the workspace unless configured to), so a workspace pull would leave
/// closed files without diagnostics, and a file in both would show twice.
/// An open document's list is still computed here (its pull then finds it
/// memoized); when one changed, the task asks the client to pull again
/// (`workspace/diagnostic/refresh`), since an edit of one file can change
/// another's diagnostics. Opening a file that had published diagnostics
/// publishes an empty list for it, so the pulled report replaces them.
/// Files changed on disk (`(uri, deleted)`), as the client's watcher or the
/// server's own reports them: each closed one is read again (or dropped),
/// the diagnostics task checks what depends on it, and a file that is gone
/// gets its diagnostics cleared.
async fn files_changed_on_disk(
    shared: &Shared,
    client: &Client,
    changes: impl IntoIterator<Item = (Uri, bool)>,
) {
    let mut gone = Vec::new();
    let mut changed = false;
    {
        let mut workspace = shared.lock();
        for (uri, deleted) in changes {
            if workspace.disk_changed(&uri, deleted) {
                changed = true;
                let uri = crate::workspace::normalize(&uri);
                if !workspace.knows(&uri) {
                    gone.push(uri);
                }
            }
        }
    }
    if changed {
        shared.changed.notify_one();
    }
    for uri in gone {
        client.publish_diagnostics(uri, Vec::new(), None).await;
    }
}

/// Follows the disk with the server's own watcher (see `watch.rs`), for a
/// client that watches no files for it; returns when the watcher could not
/// start (said in the client's log).
async fn watch_task(
    shared: Arc<Shared>,
    client: Client,
    watcher: notify::Result<crate::watch::Watching>,
) {
    use crate::watch::DiskChange;
    let mut watching = match watcher {
        Ok(w) => w,
        Err(e) => {
            client
                .log_message(
                    MessageType::WARNING,
                    format!(
                        "nilang-lsp: cannot watch the workspace ({e}); closed .nil files changed on disk keep their old diagnostics"
                    ),
                )
                .await;
            return;
        }
    };
    while let Some(first) = watching.changes.recv().await {
        // An editor's save or a checkout comes as a burst: one pass.
        let mut batch = vec![first];
        while let Ok(more) = watching.changes.try_recv() {
            batch.push(more);
        }
        let mut files = Vec::new();
        for change in batch {
            match change {
                DiskChange::File { path, deleted } => files.push((path, deleted)),
                DiskChange::Folder(folder) => files.extend(
                    watching
                        .add_folder(&folder)
                        .into_iter()
                        .map(|path| (path, false)),
                ),
            }
        }
        let uris: Vec<(Uri, bool)> = files
            .into_iter()
            .filter_map(|(path, deleted)| Some((Uri::from_file_path(&path)?, deleted)))
            .collect();
        files_changed_on_disk(&shared, &client, uris).await;
    }
}

async fn diagnostics_task(shared: Arc<Shared>, client: Client) {
    let mut published: HashMap<Uri, Vec<Diagnostic>> = HashMap::new();
    let mut pulled: HashMap<Uri, Vec<Diagnostic>> = HashMap::new();
    let mut tokens = 0u32;
    loop {
        shared.changed.notified().await;
        let mut progress = None;
        let (mut done, mut total) = (0usize, 0usize);
        let mut refresh = false;
        let (pull, can_refresh) = {
            let workspace = shared.lock();
            (workspace.pull_diagnostics, workspace.refresh_diagnostics)
        };
        loop {
            let (encoding, progress_ok, work) = {
                let mut workspace = shared.lock();
                // Progress for the first check of the workspace only.
                let progress_ok = workspace.work_done_progress
                    && std::mem::take(&mut workspace.first_check_pending);
                (workspace.encoding, progress_ok, workspace.take_dirty(CHUNK))
            };
            let Some((db, jobs, left)) = work else {
                break;
            };
            total = total.max(done + jobs.len() + left);
            if progress_ok && total >= PROGRESS_MIN {
                tokens += 1;
                progress = begin_progress(&client, tokens, total).await;
            }
            let for_worker = jobs.clone();
            let computed = tokio::task::spawn_blocking(move || {
                let result = nilang_ide::Cancelled::catch(AssertUnwindSafe(|| {
                    for_worker
                        .iter()
                        .map(|job| {
                            features::file_diagnostics(
                                &db,
                                job.project,
                                job.file,
                                &job.uri,
                                encoding,
                            )
                        })
                        .collect::<Vec<_>>()
                }));
                drop(db);
                result
            })
            .await;
            match computed {
                Ok(Ok(lists)) => {
                    done += jobs.len();
                    for (job, list) in jobs.into_iter().zip(lists) {
                        // A newer version is queued already (or the file is
                        // gone): publish that one.
                        {
                            let workspace = shared.lock();
                            if !workspace.knows(&job.uri)
                                || workspace.version(&job.uri) != job.version
                            {
                                continue;
                            }
                        }
                        if pull && job.version.is_some() {
                            if published.remove(&job.uri).is_some_and(|l| !l.is_empty()) {
                                client
                                    .publish_diagnostics(job.uri.clone(), Vec::new(), job.version)
                                    .await;
                            }
                            if pulled.get(&job.uri) != Some(&list) {
                                pulled.insert(job.uri, list);
                                refresh = true;
                            }
                            continue;
                        }
                        pulled.remove(&job.uri);
                        if !job.force && published.get(&job.uri) == Some(&list) {
                            continue;
                        }
                        published.insert(job.uri.clone(), list.clone());
                        client.publish_diagnostics(job.uri, list, job.version).await;
                    }
                }
                Ok(Err(_cancelled)) => shared.lock().requeue(jobs),
                Err(panic) => {
                    done += jobs.len();
                    client
                        .log_message(
                            MessageType::ERROR,
                            format!("nilang-lsp: computing diagnostics failed: {panic}"),
                        )
                        .await;
                }
            }
            if let Some(p) = &progress {
                let percentage = (done.min(total) * 100 / total.max(1)) as u32;
                p.report_with_message(format!("{done}/{total} files"), percentage)
                    .await;
            }
        }
        if let Some(p) = progress {
            p.finish_with_message(format!("{done}/{total} files checked"))
                .await;
        }
        if refresh && can_refresh {
            let client = client.clone();
            // Not awaited: the client's answer must not hold up the task.
            tokio::spawn(async move { client.workspace_diagnostic_refresh().await });
        }
        // Forget files the server no longer knows.
        let known = shared.lock().known_files();
        published.retain(|uri, _| known.contains(uri));
        pulled.retain(|uri, _| known.contains(uri));
    }
}

/// Starts a `$/progress` report for checking `total` files, when the
/// client accepts the token.
async fn begin_progress(
    client: &Client,
    n: u32,
    total: usize,
) -> Option<
    tower_lsp_server::OngoingProgress<tower_lsp_server::Bounded, tower_lsp_server::NotCancellable>,
> {
    let token = NumberOrString::String(format!("nilang-lsp/check/{n}"));
    client
        .send_request::<request::WorkDoneProgressCreate>(WorkDoneProgressCreateParams {
            token: token.clone(),
        })
        .await
        .ok()?;
    Some(
        client
            .progress(token, "Checking .nil files")
            .with_message(format!("0/{total} files"))
            .with_percentage(0)
            .begin()
            .await,
    )
}

/// The folders whose `.nil` files the server checks: the workspace folders,
/// or the root URI of clients that send only that.
#[allow(deprecated)] // `root_uri`: what older clients send.
fn workspace_roots(params: &InitializeParams) -> Vec<std::path::PathBuf> {
    let uris: Vec<&Uri> = match &params.workspace_folders {
        Some(folders) if !folders.is_empty() => folders.iter().map(|f| &f.uri).collect(),
        _ => params.root_uri.iter().collect(),
    };
    uris.into_iter()
        .filter(|u| u.scheme().as_str() == "file")
        .filter_map(|u| u.to_file_path())
        .map(|p| p.into_owned())
        .collect()
}

fn choose_encoding(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(list) if list.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

fn snippet_support(params: &InitializeParams) -> bool {
    params
        .capabilities
        .text_document
        .as_ref()
        .and_then(|t| t.completion.as_ref())
        .and_then(|c| c.completion_item.as_ref())
        .and_then(|i| i.snippet_support)
        .unwrap_or(false)
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = choose_encoding(&params);
        let pull = params
            .capabilities
            .text_document
            .as_ref()
            .is_some_and(|t| t.diagnostic.is_some());
        {
            let mut workspace = self.shared.lock();
            workspace.encoding = encoding;
            workspace.snippets = snippet_support(&params);
            workspace.work_done_progress = params
                .capabilities
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false);
            workspace.watch_files = params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|w| w.dynamic_registration)
                .unwrap_or(false);
            workspace.roots = workspace_roots(&params);
            workspace.pull_diagnostics = pull;
            workspace.refresh_diagnostics = params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.diagnostics.as_ref())
                .and_then(|d| d.refresh_support)
                .unwrap_or(false);
        }
        self.spawn_diagnostics_task();
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(match encoding {
                    Encoding::Utf8 => PositionEncodingKind::UTF8,
                    Encoding::Utf16 => PositionEncodingKind::UTF16,
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Right(RenameOptions {
                    prepare_provider: Some(true),
                    work_done_progress_options: Default::default(),
                })),
                document_highlight_provider: Some(OneOf::Left(true)),
                inlay_hint_provider: Some(OneOf::Left(true)),
                selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(vec!["(".to_string(), ",".to_string()]),
                    retrigger_characters: None,
                    work_done_progress_options: Default::default(),
                }),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        ..Default::default()
                    },
                )),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                document_formatting_provider: Some(OneOf::Left(true)),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![".".to_string()]),
                    ..Default::default()
                }),
                // Clients that pull diagnostics get them by request, the
                // others by publication.
                diagnostic_provider: pull.then(|| {
                    DiagnosticServerCapabilities::Options(DiagnosticOptions {
                        identifier: Some("nilang".to_string()),
                        inter_file_dependencies: true,
                        // Closed files stay published (see
                        // `diagnostics_task`), so there is no workspace pull.
                        workspace_diagnostics: false,
                        work_done_progress_options: Default::default(),
                    })
                }),
                semantic_tokens_provider: Some(
                    SemanticTokensServerCapabilities::SemanticTokensOptions(
                        SemanticTokensOptions {
                            legend: SemanticTokensLegend {
                                token_types: features::TOKEN_TYPES.to_vec(),
                                token_modifiers: features::TOKEN_MODIFIERS.to_vec(),
                            },
                            full: Some(SemanticTokensFullOptions::Bool(true)),
                            range: None,
                            ..Default::default()
                        },
                    ),
                ),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "nilang-lsp".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let shared = self.shared.clone();
        let client = self.client.clone();
        // Not awaited here: the client answers the registration while the
        // server goes on reading its messages.
        tokio::spawn(async move {
            let watch = shared.lock().watch_files;
            if watch {
                let options = DidChangeWatchedFilesRegistrationOptions {
                    watchers: vec![FileSystemWatcher {
                        glob_pattern: GlobPattern::String("**/*.nil".to_string()),
                        kind: None,
                    }],
                };
                let registered = client
                    .register_capability(vec![Registration {
                        id: "nilang-lsp/watch-nil-files".to_string(),
                        method: "workspace/didChangeWatchedFiles".to_string(),
                        register_options: serde_json::to_value(options).ok(),
                    }])
                    .await;
                if let Err(e) = registered {
                    client
                        .log_message(
                            MessageType::WARNING,
                            format!("nilang-lsp: the client did not take the file watcher: {e}"),
                        )
                        .await;
                }
            } else {
                // The client watches nothing for its servers: the server
                // watches the workspace folders itself.
                // It starts before the folders are loaded, so that no change
                // falls between the two.
                let roots = shared.lock().roots.clone();
                if !roots.is_empty() {
                    let watcher = crate::watch::watch(&roots);
                    tokio::spawn(watch_task(shared.clone(), client.clone(), watcher));
                }
            }
            // The workspace's files, checked and published (with progress)
            // by the diagnostics task.
            let added = {
                let mut workspace = shared.lock();
                let roots = workspace.roots.clone();
                let added = roots
                    .iter()
                    .map(|r| workspace.load_folder(r))
                    .sum::<usize>();
                workspace.first_check_pending = added > 0;
                added
            };
            if added > 0 {
                shared.changed.notify_one();
            }
        });
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let changes = params
            .changes
            .into_iter()
            .map(|event| (event.uri, event.typ == FileChangeType::DELETED));
        files_changed_on_disk(&self.shared, &self.client, changes).await;
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        let previous = params.previous_result_id;
        let items = self
            .read(&params.text_document.uri, |s| {
                features::file_diagnostics(&s.db, s.project, s.file, &s.uri, s.encoding)
            })
            .await?
            // A document the server does not know has no diagnostics.
            .unwrap_or_default();
        let result_id = features::result_id(&items);
        let report = if previous.as_deref() == Some(result_id.as_str()) {
            DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                related_documents: None,
                unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                    result_id,
                },
            })
        } else {
            DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: Some(result_id),
                    items,
                },
            })
        };
        Ok(DocumentDiagnosticReportResult::Report(report))
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.shared.lock().open(doc.uri, doc.text, doc.version);
        self.shared.changed.notify_one();
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let doc = params.text_document;
        let known = self
            .shared
            .lock()
            .change(&doc.uri, doc.version, params.content_changes);
        if known {
            self.shared.changed.notify_one();
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = crate::workspace::normalize(&params.text_document.uri);
        let known = {
            let mut workspace = self.shared.lock();
            workspace.close(&uri);
            workspace.knows(&uri)
        };
        self.shared.changed.notify_one();
        // A file on disk keeps its diagnostics (for its saved text); one
        // that never was saved leaves with its document.
        if !known {
            self.client.publish_diagnostics(uri, Vec::new(), None).await;
        }
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let position = p.position;
        Ok(self
            .read(&p.text_document.uri, move |s| features::hover(s, position))
            .await?
            .flatten())
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let p = params.text_document_position_params;
        let position = p.position;
        Ok(self
            .read(&p.text_document.uri, move |s| {
                features::definition(s, position)
            })
            .await?
            .flatten()
            .map(GotoDefinitionResponse::Scalar))
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let p = params.text_document_position;
        let position = p.position;
        let include = params.context.include_declaration;
        Ok(self
            .read(&p.text_document.uri, move |s| {
                features::references(s, position, include)
            })
            .await?
            .flatten())
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        let position = params.position;
        self.read_refusable(&params.text_document.uri, move |s| {
            features::prepare_rename(s, position)
        })
        .await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let p = params.text_document_position;
        let position = p.position;
        let new_name = params.new_name;
        self.read_refusable(&p.text_document.uri, move |s| {
            features::rename(s, position, &new_name)
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let range = params.range;
        self.read(&params.text_document.uri, move |s| {
            features::code_actions(s, range)
        })
        .await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let p = params.text_document_position_params;
        let position = p.position;
        Ok(self
            .read(&p.text_document.uri, move |s| {
                features::signature_help(s, position)
            })
            .await?
            .flatten())
    }

    async fn selection_range(
        &self,
        params: SelectionRangeParams,
    ) -> Result<Option<Vec<SelectionRange>>> {
        let positions = params.positions;
        self.read(&params.text_document.uri, move |s| {
            features::selection_ranges(s, &positions)
        })
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let range = params.range;
        self.read(&params.text_document.uri, move |s| {
            features::inlay_hints(s, range)
        })
        .await
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        let p = params.text_document_position_params;
        let position = p.position;
        self.read(&p.text_document.uri, move |s| {
            features::document_highlights(s, position)
        })
        .await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        self.read(&params.text_document.uri, features::folding_ranges)
            .await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        let Some((snapshot, projects)) = self.shared.lock().workspace_snapshot() else {
            return Ok(Some(WorkspaceSymbolResponse::Flat(Vec::new())));
        };
        let query = params.query;
        let symbols = compute(snapshot, move |s| {
            features::workspace_symbols(s, &projects, &query, WORKSPACE_SYMBOLS)
        })
        .await?;
        Ok(Some(WorkspaceSymbolResponse::Flat(symbols)))
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        Ok(self
            .read(&params.text_document.uri, features::document_symbols)
            .await?
            .map(DocumentSymbolResponse::Nested))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        self.read(&params.text_document.uri, features::code_lenses)
            .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        Ok(self
            .read(&params.text_document.uri, features::semantic_tokens)
            .await?
            .map(|data| {
                SemanticTokensResult::Tokens(SemanticTokens {
                    result_id: None,
                    data,
                })
            }))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let p = params.text_document_position;
        let position = p.position;
        Ok(self
            .read(&p.text_document.uri, move |s| {
                features::completion(s, position)
            })
            .await?
            .map(CompletionResponse::List))
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        let options = params.options;
        self.read_refusable(&params.text_document.uri, move |s| {
            features::formatting(s, &options).map_err(|refusal| refusal.message())
        })
        .await
    }
}
