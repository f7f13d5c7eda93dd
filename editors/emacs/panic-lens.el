;;; panic-lens.el --- panic-lens language server for eglot  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: languages, tools
;; SPDX-License-Identifier: MIT

;;; Commentary:

;; panic-lens warns about burn calls that will panic at run time.  This file registers its
;; language server (`panic-lens serve', from the panic-lens Python package) with eglot for
;; Rust buffers, and adds two commands that call the server:
;; `panic-lens-explain-panic' (explain a panic message or log in the region) and
;; `panic-lens-scan-workspace'.
;;
;;   (add-to-list 'load-path "/path/to/panic-lens/editors/emacs")
;;   (require 'panic-lens)
;;   (panic-lens-eglot-setup)
;;   (add-hook 'rust-mode-hook #'eglot-ensure)       ; or rust-ts-mode-hook
;;
;; eglot runs ONE server per major mode: after `panic-lens-eglot-setup', Rust buffers get
;; panic-lens instead of rust-analyzer.  To keep rust-analyzer, either use lsp-mode, which runs
;; add-on servers next to the main one (see `editors/emacs/README.md'), or call
;; `panic-lens-eglot-setup' only in projects where you want panic-lens.
;;
;; Records files (the `.json' and `.jsonl' files of the folders of the `records' setting) get
;; each record's coverage when their buffers are in `panic-lens-records-mode', an opt-in, e.g.:
;;
;;   (add-to-list 'auto-mode-alist
;;                '("/my-crate/records/[^/]*\\.jsonl?\\'" . panic-lens-records-mode))
;;   (add-hook 'panic-lens-records-mode-hook #'eglot-ensure)
;;
;; Settings travel through `eglot-workspace-configuration' under the `panicLens' section,
;; with the same keys as VS Code's `panicLens.*' settings, for example in .dir-locals.el:
;;
;;   ((rust-mode . ((eglot-workspace-configuration
;;                   . (:panicLens (:severity (:router-unsupported-dtype "off")
;;                                  :scope "openFiles"))))))

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'subr-x)

(defgroup panic-lens nil
  "The panic-lens language server for burn code."
  :group 'tools
  :prefix "panic-lens-")

(defcustom panic-lens-server-command '("panic-lens" "serve")
  "The argv that starts the panic-lens language server on stdio."
  :type '(repeat string))

(defcustom panic-lens-major-modes '(rust-mode rust-ts-mode panic-lens-records-mode)
  "Major modes whose buffers eglot connects to panic-lens."
  :type '(repeat symbol))

(defalias 'panic-lens--json-mode (if (fboundp 'js-json-mode) #'js-json-mode #'js-mode)
  "The mode of JSON files: `js-json-mode' from Emacs 29 on, `js-mode' before.")

;;;###autoload
(define-derived-mode panic-lens-records-mode panic-lens--json-mode "Records"
  "JSON mode for panic-lens records files (in folders of its `records' setting).
A mode of its own, so that eglot gives these buffers to panic-lens, which
shows which rule checks each record, while other JSON (and JavaScript) buffers
keep their own servers.  Nothing enters it unless told to: see
`editors/emacs/README.md'.")

;;;###autoload
(defun panic-lens-eglot-setup ()
  "Make eglot start panic-lens for `panic-lens-major-modes'.
This replaces any other eglot server for those modes (eglot runs one per mode)."
  (setq eglot-server-programs
        (cons (cons panic-lens-major-modes (lambda (&rest _) panic-lens-server-command))
              (cl-remove-if (lambda (entry) (equal (car entry) panic-lens-major-modes))
                            eglot-server-programs))))

(defun panic-lens--execute (command &rest arguments)
  "Run the server's workspace COMMAND with ARGUMENTS and return its result."
  (jsonrpc-request (eglot--current-server-or-lose) :workspace/executeCommand
                   (list :command command :arguments (vconcat arguments))))

(defun panic-lens--explanation (result)
  "Plain text for the RESULT of panic-lens.explainPanic."
  (let ((lines '()))
    (seq-doseq (m (plist-get result :matches))
      (push (format "record %s, line %d: %s" (plist-get m :record_id)
                    (plist-get m :line_no) (string-trim (plist-get m :line)))
            lines))
    (seq-doseq (m (plist-get result :ruleMatches))
      (push (format "rule %s, line %d: %s (records: %s) %s" (plist-get m :rule)
                    (plist-get m :line_no) (string-trim (plist-get m :line))
                    (mapconcat #'identity (plist-get m :record_ids) ", ")
                    (or (plist-get m :note) ""))
            lines))
    (if lines (string-join (nreverse lines) "\n") "No record and no rule matches this text.")))

;;;###autoload
(defun panic-lens-explain-panic (text)
  "Explain TEXT, a panic message or a whole `cargo test' log.
Interactively, TEXT is the region, or a message read from the minibuffer."
  (interactive (list (if (use-region-p)
                         (buffer-substring-no-properties (region-beginning) (region-end))
                       (read-string "Panic message: "))))
  (let ((explanation (panic-lens--explanation
                      (panic-lens--execute "panic-lens.explainPanic" text))))
    (with-help-window "*panic-lens explain*"
      (princ explanation))
    explanation))

;;;###autoload
(defun panic-lens-scan-workspace ()
  "Ask panic-lens to analyse every .rs file of the workspace again."
  (interactive)
  (let ((result (panic-lens--execute "panic-lens.scanWorkspace")))
    (message "panic-lens: scanned %s files, %s findings"
             (plist-get result :files) (plist-get result :findings))
    result))

(provide 'panic-lens)
;;; panic-lens.el ends here
