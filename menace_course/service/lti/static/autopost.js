// Send a form marked data-autopost as soon as the page loads (the LTI hand-back to the LMS).
// Without JavaScript the form's own button does the same.
document.querySelectorAll("form[data-autopost]").forEach(function (form) { form.submit(); });
