;;; emacs_e2e.el --- emacs --batch end-to-end check of editors/emacs/panic-lens.el  -*- lexical-binding: t -*-
;; Env: PANIC_LENS_EL (panic-lens.el), PANIC_LENS_CMD (JSON argv), PANIC_LENS_RULE (rule id to
;; fix), PANIC_LENS_FILE (the .rs file), PANIC_LENS_OUT (result JSON). test_emacs.py judges it.
;; With PANIC_LENS_RECORDS (a records folder, relative to the project) the file is a records
;; file, put in `panic-lens-records-mode' as the README says, and only its record-coverage
;; diagnostic is checked.
(require 'json)
(require 'flymake)
(load (getenv "PANIC_LENS_EL") nil t)
(unless (fboundp 'rust-mode)                ; Emacs 28 ships no Rust mode
  (define-derived-mode rust-mode prog-mode "Rust"))
(add-to-list 'auto-mode-alist '("\\.rs\\'" . rust-mode))
(setq panic-lens-server-command (append (json-parse-string (getenv "PANIC_LENS_CMD")) nil))
(panic-lens-eglot-setup)
(setq eglot-sync-connect t eglot-connect-timeout 60 eglot-autoshutdown t
      make-backup-files nil create-lockfiles nil)

(defvar e2e-rule (getenv "PANIC_LENS_RULE"))
(when (getenv "PANIC_LENS_SEVERITY")    ; a user override, as it would sit in .dir-locals.el
  (setq-default eglot-workspace-configuration
                `(:panicLens (:severity (,(intern (concat ":" e2e-rule)) ,(getenv "PANIC_LENS_SEVERITY"))))))
(defvar e2e-records (getenv "PANIC_LENS_RECORDS"))
(when e2e-records                       ; the README's opt-in, for this records folder
  (add-to-list 'auto-mode-alist
               (cons (concat "/" (regexp-quote e2e-records) "/[^/]*\\.jsonl?\\'")
                     'panic-lens-records-mode))
  (setq-default eglot-workspace-configuration `(:panicLens (:records [,e2e-records]))))
(defvar e2e-result (list :emacs emacs-version :eglot (file-name-directory (locate-library "eglot"))))

(defun e2e-put (key value) (setq e2e-result (plist-put e2e-result key value)))

(defun e2e-wait (what secs pred)
  (let ((deadline (+ (float-time) secs)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or (funcall pred) (error "timed out waiting for %s" what))))

(defun e2e-lsp-diag (d) (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d))))

(defun e2e-ours ()
  (cl-remove-if-not (lambda (d) (equal (plist-get (e2e-lsp-diag d) :source) "panic-lens"))
                    (flymake-diagnostics)))

(defun e2e-of-rule ()
  (cl-remove-if-not (lambda (d) (equal (plist-get (e2e-lsp-diag d) :code) e2e-rule)) (e2e-ours)))

(defun e2e-summary (diags)
  (vconcat (mapcar (lambda (d) (list :line (1- (line-number-at-pos (flymake-diagnostic-beg d)))
                                     :code (plist-get (e2e-lsp-diag d) :code)
                                     :severity (plist-get (e2e-lsp-diag d) :severity)
                                     :text (flymake-diagnostic-text d)))
                   diags)))

(defun e2e-hover (server d)
  (goto-char (flymake-diagnostic-beg d))
  (let ((h (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams))))
    (e2e-put :hover (plist-get (plist-get h :contents) :value))))

(defun e2e-fix (d)
  ;; eglot's own request: the diagnostics in the range come from flymake
  (let* ((actions (eglot-code-actions (flymake-diagnostic-beg d) (flymake-diagnostic-end d) "quickfix"))
         (chosen (cl-find-if (lambda (a) (eq (plist-get a :isPreferred) t)) actions)))
    (e2e-put :code_actions (vconcat (mapcar (lambda (a) (plist-get a :title)) actions)))
    (unless chosen (error "no preferred quick fix among %d actions" (length actions)))
    (unless (plist-get chosen :edit) (error "the preferred quick fix has no edit"))
    (e2e-put :applied (plist-get chosen :title))
    (eglot--apply-workspace-edit (plist-get chosen :edit))
    ;; eglot sends didChange from an idle timer, which --batch never reaches
    (eglot--signal-textDocument/didChange)
    (e2e-put :fixed_line (string-trim (thing-at-point 'line t)))
    (e2e-put :buffer (buffer-substring-no-properties (point-min) (point-max)))))

(defun e2e-run (buf)
  (with-current-buffer buf
    (eglot-ensure)
    (run-hooks 'post-command-hook)          ; eglot-ensure connects from post-command-hook
    (e2e-wait "eglot to connect" 60 #'eglot-current-server)
    (let ((server (eglot-current-server)))
      (e2e-put :project_root (expand-file-name (project-root (eglot--project server))))
      (flymake-start)
      (e2e-wait (format "a %s diagnostic" e2e-rule) 60 #'e2e-of-rule)
      (e2e-put :first_diagnostics (e2e-summary (e2e-ours)))
      ;; settings may reach the server after its first analysis: wait for the settled severity
      (when (getenv "PANIC_LENS_EXPECT_SEVERITY")
        (let ((want (string-to-number (getenv "PANIC_LENS_EXPECT_SEVERITY"))))
          (e2e-wait "the configured severity" 20
                    (lambda () (cl-some (lambda (d) (eql (plist-get (e2e-lsp-diag d) :severity) want))
                                        (e2e-of-rule))))))
      (e2e-put :diagnostics (e2e-summary (e2e-ours)))
      (let ((d (car (e2e-of-rule))))
        (e2e-hover server d)
        (e2e-fix d))
      (e2e-wait (format "the %s diagnostic to go" e2e-rule) 30 (lambda () (null (e2e-of-rule))))
      (e2e-put :diagnostics_after (e2e-summary (e2e-ours)))
      (e2e-put :explain (panic-lens-explain-panic (getenv "PANIC_LENS_PANIC")))
      (e2e-put :scan (panic-lens-scan-workspace))
      (eglot-shutdown server))))

(defun e2e-run-records (buf)
  (with-current-buffer buf
    (e2e-put :major_mode (symbol-name major-mode))
    (eglot-ensure)
    (run-hooks 'post-command-hook)
    (e2e-wait "eglot to connect" 60 #'eglot-current-server)
    (let ((server (eglot-current-server)))
      (e2e-put :project_root (expand-file-name (project-root (eglot--project server))))
      (flymake-start)
      (e2e-wait "a record-coverage diagnostic" 60
                (lambda () (cl-some (lambda (d) (equal (plist-get (e2e-lsp-diag d) :code)
                                                       "record-coverage"))
                                    (e2e-ours))))
      (e2e-put :diagnostics (e2e-summary (e2e-ours)))
      (eglot-shutdown server))))

(let* ((buf (find-file-noselect (getenv "PANIC_LENS_FILE")))
       (err (condition-case e (progn (if e2e-records (e2e-run-records buf) (e2e-run buf)) nil)
              (error (error-message-string e)))))
  (when err
    (e2e-put :error err)
    (with-current-buffer buf (e2e-put :diagnostics_at_error (e2e-summary (e2e-ours)))))
  (with-temp-file (getenv "PANIC_LENS_OUT")
    (insert (json-encode e2e-result)))
  (kill-emacs (if err 1 0)))
