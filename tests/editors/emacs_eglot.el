;;; emacs_eglot.el --- an Emacs session of idemlint's language server, in batch  -*- lexical-binding: t -*-
;;
;;   IDEMLINT_INIT=init.el emacs --batch -l tests/editors/emacs_eglot.el FILE
;;
;; Loads IDEMLINT_INIT (the README's eglot snippet) as a user's init.el,
;; visits FILE (python-mode, whose hook starts eglot), waits for the
;; diagnostics the server publishes for it and prints their codes and
;; 1-based lines, one a line ("IDM002 7"), then shuts the server down.
;; Exit status 0, or 1 when no diagnostics came within IDEMLINT_TIMEOUT
;; seconds (default 60).

(require 'package)
(package-initialize)
(load (getenv "IDEMLINT_INIT") nil t)

(defvar idemlint--published nil "The diagnostics of the last publishDiagnostics.")
(defvar idemlint--seen nil "Whether one came.")

(with-eval-after-load 'eglot
  (advice-add 'eglot-handle-notification :before
              (lambda (_server method &rest params)
                (when (eq method 'textDocument/publishDiagnostics)
                  (setq idemlint--published (plist-get params :diagnostics)
                        idemlint--seen t)))))

(let* ((file (car command-line-args-left))
       (timeout (string-to-number (or (getenv "IDEMLINT_TIMEOUT") "60")))
       (deadline (+ (float-time) timeout)))
  (setq command-line-args-left nil)
  (find-file file)
  ;; eglot-ensure connects on the next command; batch mode runs none.
  (run-hooks 'post-command-hook)
  (while (and (not idemlint--seen) (< (float-time) deadline))
    (accept-process-output nil 0.1))
  (unless idemlint--seen
    (message "no diagnostics within %s s" timeout)
    (kill-emacs 1))
  (dolist (diagnostic (append idemlint--published nil))
    (princ (format "%s %d\n"
                   (plist-get diagnostic :code)
                   (1+ (plist-get (plist-get (plist-get diagnostic :range) :start) :line)))))
  (eglot-shutdown (eglot-current-server))
  (kill-emacs 0))
