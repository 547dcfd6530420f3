// msgpackr treats a falsy export as "no native extractor" and decodes in JavaScript.
module.exports = null;
