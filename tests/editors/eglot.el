;;; eglot.el --- headless eglot against lait-ls: diagnostics and completion, printed as JSON lines
;; emacs --batch -Q -l eglot.el FILE LINE COLUMN  (LINE 1-based, COLUMN 0-based: where to complete)
;; The server command is $LAIT_LS (a shell command line). Prints one JSON object per line:
;; {"diagnostics": [[line, col, message]...]} then {"completion": [label...]}.
(dolist (d (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*")) (add-to-list 'load-path d))
(require 'eglot)
(require 'flymake)
(require 'json)
(define-derived-mode lait-yaml-mode text-mode "lait-yaml")
(add-to-list 'eglot-server-programs
             `(lait-yaml-mode . ("sh" "-c" ,(getenv "LAIT_LS"))))
(setq eglot-sync-connect 10 eglot-connect-timeout 30)
(let* ((file (nth 0 command-line-args-left))
       (line (string-to-number (nth 1 command-line-args-left)))
       (column (string-to-number (nth 2 command-line-args-left))))
  (find-file file)
  (lait-yaml-mode)
  (apply #'eglot (eglot--guess-contact))
  (flymake-mode 1)
  (let ((deadline (+ (float-time) 30)) diags)
    (while (and (null diags) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (flymake-start)
      (setq diags (flymake-diagnostics)))
    (princ (concat (json-encode
                    `((diagnostics . ,(vconcat
                                       (mapcar (lambda (d)
                                                 (save-excursion
                                                   (goto-char (flymake-diagnostic-beg d))
                                                   (vector (line-number-at-pos) (current-column)
                                                           (flymake-diagnostic-text d))))
                                               diags)))))
                   "\n")))
  (goto-char (point-min))
  (forward-line (1- line))
  (move-to-column column)
  (let* ((server (eglot-current-server))
         (result (jsonrpc-request server :textDocument/completion
                                  (eglot--TextDocumentPositionParams)))
         (items (if (vectorp result) result (plist-get result :items))))
    (princ (concat (json-encode `((completion . ,(vconcat (mapcar (lambda (i) (plist-get i :label)) items)))))
                   "\n"))
    (eglot-shutdown server)))
(kill-emacs 0)
