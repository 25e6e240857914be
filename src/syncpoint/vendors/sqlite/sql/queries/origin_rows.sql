SELECT dbid FROM ${origin}
