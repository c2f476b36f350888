package org.example.textkit;

public final class Users {

    public static boolean sameUser(String login, String other) {
        if (login == null) {
            return false;
        }
        return login.trim() == other.trim();
    }
}
