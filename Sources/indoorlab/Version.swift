/// `indoorlab --version`. Raised with each release of the lab (the recording schema has its own version).
let indoorlabVersion = "0.6.0"
