module github.com/hwscope/hugo-hwscope

go 1.20
