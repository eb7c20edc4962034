"""Which module of lamina.builtins registers each builtin, so that a program imports only the
modules whose builtins it uses (registry.spec_of). Generated from the registry by `make docs`
(lamina/docs/builtin_index.py): do not edit."""

BY_MODULE = {
    "arrays": (
        "cat", "fill", "ndims", "permute", "squeeze", "stack", "unsqueeze",
    ),
    "attention": (
        "attention", "positional_embedding", "transformer_block",
    ),
    "autodiff": (
        "detach", "grad", "param", "tape_limit", "tape_reset", "tape_size", "track",
    ),
    "conv": (
        "avg_pool", "conv1d", "conv2d", "global_avg_pool", "max_pool",
    ),
    "core": (
        "append", "assert", "clock", "concat", "filter", "has", "help", "keys", "length", "map",
        "print", "print_options",
    ),
    "data": (
        "as_matrix", "best", "columns", "describe", "head", "nrows", "read_csv", "standardize",
        "table", "train_test_split", "write_csv",
    ),
    "dates": (
        "category", "date", "datetime", "day", "hour", "levels", "minute", "month", "second",
        "weekday", "year",
    ),
    "decompositions": (
        "chol", "eig", "eigh", "qr", "svd",
    ),
    "derivatives": (
        "hessian", "hvp", "jacobian",
    ),
    "distributions": (
        "beta_dist", "binomial", "cdf", "chi2", "exponential", "f_dist", "gamma_dist", "logpdf",
        "logpmf", "negative_binomial", "normal", "pdf", "poisson", "sample", "student_t",
        "uniform", "weibull",
    ),
    "dtypes": (
        "dtype", "float32", "float64",
    ),
    "figures": (
        "bar", "figure", "hist", "plot", "savefig", "scatter", "show",
    ),
    "glm": (
        "aic", "bic", "glm", "loglik",
    ),
    "gru": (
        "gru_cell", "gru_forward", "gru_init",
    ),
    "hypothesis": (
        "chisq_test", "corr_test", "fisher_test", "kruskal_test", "prop_test", "shapiro_test",
        "t_test", "wilcox_test",
    ),
    "layers": (
        "custom_layer", "embedding", "flatten", "gru", "layer_norm",
    ),
    "likelihood": (
        "minimize", "mle", "vcov",
    ),
    "linalg": (
        "det", "dot", "inv", "kron", "logdet", "norm", "outer", "solve", "trace",
    ),
    "logic": (
        "all", "any", "isfinite", "isinf", "isnan", "where",
    ),
    "losses": (
        "binary_cross_entropy", "cross_entropy", "mae", "mse",
    ),
    "lr_schedules": (
        "lr_adaptive", "lr_cosine", "lr_plateau", "lr_step",
    ),
    "mathfns": (
        "abs", "ceil", "clamp", "cos", "exp", "expm1", "floor", "log", "log10", "log1p", "log2",
        "logsumexp", "max", "mean", "min", "mod", "prod", "round", "sign", "sin", "sqrt", "sum",
    ),
    "metrics": (
        "accuracy", "confusion_matrix", "f1", "precision", "r2_score", "recall",
    ),
    "model_checks": (
        "anova", "confint", "fitted", "influence", "residuals",
    ),
    "models": (
        "compile", "evaluate", "fit", "input", "load_model", "predict", "quick_mlp",
        "save_model", "summary",
    ),
    "nn": (
        "dense", "dropout", "gelu", "leaky_relu", "log_softmax", "log_softmax_rows", "relu",
        "sigmoid", "silu", "softmax", "softmax_rows", "tanh",
    ),
    "optimizers": (
        "adadelta", "adagrad", "adam", "adamax", "adamw", "nadam", "nesterov_sgd",
        "optimizer_step", "rmsprop", "sgd",
    ),
    "parallel": (
        "parallel_map", "sweep",
    ),
    "products": (
        "einsum", "matmul",
    ),
    "program": (
        "args", "error", "exit", "warn", "warnings",
    ),
    "random": (
        "rand", "randn", "seed",
    ),
    "recurrent": (
        "batch_norm", "lstm", "lstm_cell", "lstm_forward",
    ),
    "regression": (
        "kmeans", "linreg", "logreg", "pca", "polyfit", "polyval",
    ),
    "sampling": (
        "choice", "permutation", "randint", "shuffle",
    ),
    "sequences": (
        "argsort", "cumprod", "diff", "reverse",
    ),
    "special": (
        "digamma", "lbeta", "lgamma", "polygamma", "trigamma",
    ),
    "sql": (
        "read_parquet", "sql", "write_parquet",
    ),
    "stats": (
        "corr", "cov", "cumsum", "histogram", "median", "quantile", "sort", "std", "unique",
        "var", "zscore",
    ),
    "tables": (
        "aggregate", "count", "drop_columns", "drop_missing", "group_by", "merge", "sort_rows",
        "with_column",
    ),
    "tensors": (
        "argmax", "argmin", "diag", "eye", "find", "hcat", "linspace", "ones", "range",
        "reshape", "size", "transpose", "vcat", "zeros",
    ),
    "text": (
        "contains", "format", "join", "lower", "number", "replace", "split", "string", "trim",
        "type", "upper",
    ),
    "training": (
        "train_loop",
    ),
}
MODULES = {name: module for module, names in BY_MODULE.items() for name in names}
# A name other languages give a builtin: (the builtin, the language, its first call shape).
ELSEWHERE = {
    'DataFrame': ('table', 'pandas', 'table(r)'),
    'aov': ('anova', 'R', 'anova(small, big)'),
    'arange': ('range', 'NumPy', 'range(n)'),
    'arrange': ('sort_rows', 'dplyr', 'sort_rows(t, "col")'),
    'bmm': ('matmul', 'PyTorch', 'matmul(A, B)'),
    'cbind': ('hcat', 'R', 'hcat(a, b, ...)'),
    'clip': ('clamp', 'NumPy', 'clamp(x, lo, hi)'),
    'colMeans': ('mean', 'R', 'mean(x)'),
    'colSums': ('sum', 'R', 'sum(x)'),
    'colnames': ('columns', 'R', 'columns(t)'),
    'concatenate': ('cat', 'NumPy', 'cat(a, b, ..., axis = k)'),
    'cor': ('corr', 'R', 'corr(x, y)'),
    'corrcoef': ('corr', 'NumPy', 'corr(x, y)'),
    'data_frame': ('table', 'R', 'table(r)'),
    'disp': ('print', 'MATLAB', 'print(a, b, ...)'),
    'dropna': ('drop_missing', 'pandas', 'drop_missing(t)'),
    'flip': ('reverse', 'NumPy', 'reverse(v)'),
    'fminsearch': ('minimize', 'MATLAB', 'minimize(f, x0)'),
    'grepl': ('contains', 'R', 'contains(s, part)'),
    'groupby': ('group_by', 'pandas', 'group_by(t, "col")'),
    'horzcat': ('hcat', 'MATLAB', 'hcat(a, b, ...)'),
    'hstack': ('hcat', 'NumPy', 'hcat(a, b, ...)'),
    'ifelse': ('where', 'R', 'where(cond, a, b)'),
    'inner_join': ('merge', 'dplyr', 'merge(t1, t2, on = "key")'),
    'isna': ('isnan', 'pandas', 'isnan(x)'),
    'isnull': ('isnan', 'pandas', 'isnan(x)'),
    'lapply': ('map', 'R', 'map(xs, f)'),
    'left_join': ('merge', 'dplyr', 'merge(t1, t2, on = "key")'),
    'len': ('length', 'Python', 'length(x)'),
    'lm': ('linreg', 'R', 'linreg(X, y)'),
    'manual_seed': ('seed', 'PyTorch', 'seed(n)'),
    'mutate': ('with_column', 'dplyr', 'with_column(t, "name", v)'),
    'nonzero': ('find', 'NumPy', 'find(mask)'),
    'nrow': ('nrows', 'R', 'nrows(t)'),
    'numel': ('length', 'MATLAB', 'length(x)'),
    'optim': ('minimize', 'R', 'minimize(f, x0)'),
    'println': ('print', 'Julia', 'print(a, b, ...)'),
    'randperm': ('permutation', 'MATLAB', 'permutation(n)'),
    'rbind': ('vcat', 'R', 'vcat(u, v, ...)'),
    'rbinom': ('sample', 'R', 'sample(d)'),
    'rev': ('reverse', 'R', 'reverse(v)'),
    'rnorm': ('randn', 'R', 'randn()'),
    'rowMeans': ('mean', 'R', 'mean(x)'),
    'rowSums': ('sum', 'R', 'sum(x)'),
    'rpois': ('sample', 'R', 'sample(d)'),
    'runif': ('rand', 'R', 'rand()'),
    'sapply': ('map', 'R', 'map(xs, f)'),
    'sd': ('std', 'R', 'std(x)'),
    'seq': ('range', 'R', 'range(n)'),
    'sort_values': ('sort_rows', 'pandas', 'sort_rows(t, "col")'),
    'strsplit': ('split', 'R', 'split(s)'),
    'summarise': ('aggregate', 'dplyr', 'aggregate(g, f)'),
    'summarize': ('aggregate', 'dplyr', 'aggregate(g, f)'),
    'tibble': ('table', 'R', 'table(r)'),
    'to_csv': ('write_csv', 'pandas', 'write_csv(t, path)'),
    'tolower': ('lower', 'R', 'lower(s)'),
    'toupper': ('upper', 'R', 'upper(s)'),
    'ttest_ind': ('t_test', 'SciPy', 't_test(x)'),
    'vertcat': ('vcat', 'MATLAB', 'vcat(u, v, ...)'),
    'vstack': ('vcat', 'NumPy', 'vcat(u, v, ...)'),
    'which': ('find', 'R', 'find(mask)'),
}
